package pin.messenger.reaper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.Cancellation.Checkpoint;

/**
 * The phases of one cycle of {@link ConferenceRoomReaper}, under its run lock: per phase, batches
 * of claim, decide, apply and commit (one transaction each; more in drain mode, within the cycle's
 * deadline), then the logging, observer calls and listener dispatch after the commit.
 */
final class PhaseRunner {
  // The reaper's logger on purpose: these are lines of its cycle, and operators select (and set
  // the level of) the cycle's lines by that name.
  private static final Logger log = LoggerFactory.getLogger(ConferenceRoomReaper.class);

  private final ReaperStore store;
  private final ConferenceRoomReaperOptions options;
  private final ReaperObserver observer;
  private final List<ConferenceEndedListener> listeners;

  PhaseRunner(
      ReaperStore store,
      ConferenceRoomReaperOptions options,
      ReaperObserver observer,
      List<ConferenceEndedListener> listeners) {
    this.store = store;
    this.options = options;
    this.observer = observer;
    this.listeners = listeners;
  }

  /**
   * Runs the phases not {@code paused}, in order, into {@code outcomes}; stops at the deadline
   * ({@code start} plus {@link ConferenceRoomReaperOptions#maxRunDuration()}). Returns the phases
   * an operator paused after the cycle read its pauses: a batch's claim found the pause and claimed
   * nothing, so the phase stopped there (the batches before it stay committed).
   */
  Set<Phase> runPhases(
      ReaperStore.RunLock lock,
      Instant asOf,
      CycleOrigin origin,
      Cancellation cancellation,
      boolean dryRun,
      long start,
      Map<Phase, BatchOutcome> outcomes,
      Set<Phase> paused) {
    long deadline = start + options.maxRunDuration().toNanos();
    Set<Phase> pausedMeanwhile = EnumSet.noneOf(Phase.class);
    for (Phase phase : Phase.values()) {
      if (paused.contains(phase)) {
        continue;
      }
      if (lock.nothingDue(phase)) {
        // The lock's round trip found no row to claim or re-arm: no statement for this phase.
        logSelected(phase, 0, 0, 0, true);
        outcomes.put(phase, BatchOutcome.EMPTY);
        continue;
      }
      BatchOutcome total = BatchOutcome.EMPTY;
      // Where this phase's previous full batch ended (drain mode); null before the first batch.
      ClaimPosition[] after = {null};
      while (true) {
        cancellation.throwIfCancelled(Checkpoint.BEFORE_BATCH, phase);
        if (System.nanoTime() - deadline > 0) {
          log.atWarn()
              .addKeyValue("phase", phase.label())
              .addKeyValue("maxRunDuration", options.maxRunDuration())
              .log("cycle deadline reached, remaining work left for the next cycle");
          outcomes.merge(phase, total, BatchOutcome::plus);
          return pausedMeanwhile;
        }
        // The run lock and the pauses are checked by the batch's claim, before it claims anything.
        BatchOutcome batch = runBatch(lock, phase, asOf, origin, cancellation, dryRun, after);
        if (batch == null) {
          pausedMeanwhile.add(phase);
          break;
        }
        total = total.plus(batch);
        boolean full = batch.claimed() >= options.batchSize();
        if (!options.drain().enabled() || dryRun || !full || batch.closed() == 0) {
          break;
        }
        pause(options.drain().pause(), cancellation, phase);
      }
      outcomes.put(phase, total);
    }
    return pausedMeanwhile;
  }

  /**
   * One batch of {@code phase}: claim, decide, apply, commit, then what follows the commit. Null
   * when the claim found the phase paused: nothing was claimed or written.
   */
  private @Nullable BatchOutcome runBatch(
      ReaperStore.RunLock lock,
      Phase phase,
      Instant asOf,
      CycleOrigin origin,
      Cancellation cancellation,
      boolean dryRun,
      ClaimPosition[] after) {
    Instant cutoff = phase.cutoff(asOf, options);
    ReaperStore.ApplyResult applied;
    Map<UUID, String> poison = new LinkedHashMap<>();
    int claimedCount;
    int skippedLocked;
    try (ReaperStore.Batch batch =
        store.beginBatch(options.statementTimeout(), options.lockTtl())) {
      cancellation.throwIfCancelled(Checkpoint.BEFORE_CLAIM, phase);
      cancellation.throwIfCancelled(Checkpoint.BEFORE_COUNT, phase);
      boolean firstBatch = after[0] == null;
      ReaperStore.Claim claim =
          batch.claim(lock, phase, cutoff, asOf, options.batchSize(), after[0]);
      if (claim.paused()) {
        log.atInfo()
            .addKeyValue("phase", phase.label())
            .log("phase paused since the cycle began: its batches stop here");
        return null;
      }
      // Once per phase and cycle: the rows visited but not due get their next deadline (a store
      // without deadlines does nothing). In the batch's transaction, so a dry run re-arms nothing.
      int rearmed = firstBatch && !dryRun ? batch.rearm(phase, asOf, options) : 0;
      List<ConferenceSession> claimed = claim.rows();
      claimedCount = claimed.size();
      skippedLocked = claim.skippedLocked();
      if (!claimed.isEmpty()) {
        after[0] = ClaimPosition.of(phase, claimed.get(claimed.size() - 1));
      }
      logSelected(phase, claimedCount, skippedLocked, rearmed, false);

      List<Transition> closes = new ArrayList<>(claimed.size());
      for (ConferenceSession s : claimed) {
        Decision d = ReaperDecision.decide(phase, s, asOf, options);
        if (d instanceof Decision.Close close) {
          closes.add(close.transition());
        } else if (d instanceof Decision.Poison p) {
          poison.put(s.id(), p.reason());
        } else if (d instanceof Decision.Skip skip) {
          log.atDebug()
              .addKeyValue("conferenceId", s.id())
              .addKeyValue("phase", phase.label())
              .addKeyValue("reason", skip.reason())
              .log("conference left alone");
        }
      }
      cancellation.throwIfCancelled(Checkpoint.BEFORE_WRITE, phase);
      applied =
          closes.isEmpty() ? ReaperStore.ApplyResult.NOTHING : batch.apply(closes, origin, asOf);
      poison.putAll(applied.failed());
      if (!poison.isEmpty()) {
        cancellation.throwIfCancelled(Checkpoint.BEFORE_RECORD_FAILURES, phase);
        batch.recordFailures(
            poison, asOf, options.pollingInterval(), ConferenceRoomReaper.POISON_RETRY_CAP);
      }
      cancellation.throwIfCancelled(Checkpoint.BEFORE_COMMIT, phase);
      if (!dryRun) {
        // The lock again, checked at or after the batch's last write: a runner that stalled inside
        // the batch (GC pause, SIGSTOP) and lost its lock meanwhile rolls back instead of
        // committing beside the new holder.
        batch.commit(lock);
      }
    }
    afterCommit(phase, origin.jobRunId(), applied, poison, dryRun);
    // Claimed but neither closed nor poison: the decision found it no longer due, or the status
    // guard matched nothing.
    int raceLost = claimedCount - applied.applied().size() - poison.size();
    BatchOutcome outcome =
        new BatchOutcome(
            claimedCount, applied.applied().size(), skippedLocked, poison.size(), raceLost);
    if (!dryRun) {
      observer.batchCommitted(phase, outcome);
    }
    return outcome;
  }

  /** The spec's per-phase line; {@code nothingDue}: the phase sent no statement this cycle. */
  private static void logSelected(
      Phase phase, int count, int skippedLocked, int rearmed, boolean nothingDue) {
    var line =
        log.atInfo()
            .addKeyValue("phase", phase.label())
            .addKeyValue("count", count)
            .addKeyValue("skippedLocked", skippedLocked)
            .addKeyValue("rearmed", rearmed);
    if (nothingDue) {
      line = line.addKeyValue("nothingDue", true);
    }
    line.log("batch selected");
  }

  private void afterCommit(
      Phase phase,
      String jobRunId,
      ReaperStore.ApplyResult applied,
      Map<UUID, String> poison,
      boolean dryRun) {
    poison.forEach(
        (id, error) -> {
          log.atError()
              .addKeyValue("conferenceId", id)
              .addKeyValue("phase", phase.label())
              .addKeyValue("reason", error)
              .addKeyValue("dryRun", dryRun)
              .log("item failed");
          if (!dryRun) {
            // A dry run changes nothing and so fails nothing: it must not move the error meters.
            observer.itemFailed(jobRunId, phase, id, error);
          }
        });
    for (Transition t : applied.applied()) {
      ConferenceSession s = t.session();
      // Named for what happened, with its ids as fields (no personal data).
      log.atInfo()
          .addKeyValue("conferenceId", s.id())
          .addKeyValue("chatId", s.chatId())
          .addKeyValue("dealId", s.dealId())
          .addKeyValue("phase", phase.label())
          .addKeyValue("status", t.to())
          .addKeyValue("endReason", t.endReason())
          .addKeyValue("durationSeconds", t.durationSeconds())
          .addKeyValue("dryRun", dryRun)
          .log(dryRun ? "conference would be reaped" : "conference reaped");
      if (dryRun) {
        continue;
      }
      observer.conferenceReaped(jobRunId, t);
      if (t.event() != null) {
        dispatch(t.event());
      }
    }
  }

  private void dispatch(ConferenceEndedEvent event) {
    for (ConferenceEndedListener listener : listeners) {
      try {
        listener.onConferenceEnded(event);
      } catch (RuntimeException e) {
        log.atWarn()
            .addKeyValue("conferenceId", event.conferenceId())
            .addKeyValue("listener", listener.getClass().getName())
            .setCause(e)
            .log("conference-ended listener failed; the close stays committed");
      }
    }
  }

  private static void pause(Duration pause, Cancellation cancellation, Phase phase) {
    if (pause.isZero()) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(pause.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while pausing between drain batches");
    }
    cancellation.throwIfCancelled(Checkpoint.AFTER_DRAIN_PAUSE, phase);
  }
}
