package pin.messenger.reaper.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import pin.messenger.reaper.core.Cancellation.Checkpoint;

/**
 * One cycle of the ConferenceRoomReaperJob: take the single-runner lock, run the three phases in
 * order (one transaction per batch), dispatch after commit. {@link #runOnce} is all the work; a
 * scheduler only calls it. The cycle's {@code asOf} is taken once, at its start, from the clock
 * {@link ConferenceRoomReaperOptions#clock()} names (the injected worker's {@link Clock}, or the
 * database's), and passed down.
 */
public final class ConferenceRoomReaper {
  private static final Logger log = LoggerFactory.getLogger(ConferenceRoomReaper.class);

  /**
   * Longest wait before a poison row is tried again; the first retry waits one polling interval,
   * then doubling.
   */
  public static final Duration POISON_RETRY_CAP = Duration.ofMinutes(15);

  private final ReaperStore store;
  private final ConferenceRoomReaperOptions options;
  private final Clock clock;
  private final ReaperObserver observer;
  private final TraceContext traceContext;
  private final PhaseRunner phases;

  /**
   * @param clock the worker's clock: the cycles' moment under {@link ClockSource#SYSTEM}, and the
   *     reference the skew is measured against under either source
   */
  public ConferenceRoomReaper(
      ReaperStore store,
      ConferenceRoomReaperOptions options,
      Clock clock,
      ReaperObserver observer,
      List<ConferenceEndedListener> listeners) {
    this(store, options, clock, observer, TraceContext.NONE, listeners);
  }

  /**
   * @param clock the worker's clock (see above)
   * @param traceContext the trace context each cycle runs under, read once per cycle after {@link
   *     ReaperObserver#cycleStarted} and written on the cycle's outbox and recorder-stop rows
   */
  public ConferenceRoomReaper(
      ReaperStore store,
      ConferenceRoomReaperOptions options,
      Clock clock,
      ReaperObserver observer,
      TraceContext traceContext,
      List<ConferenceEndedListener> listeners) {
    this.store = store;
    this.options = options;
    this.clock = clock;
    this.observer = observer == null ? ReaperObserver.NONE : observer;
    this.traceContext = traceContext == null ? TraceContext.NONE : traceContext;
    this.phases = new PhaseRunner(store, options, this.observer, List.copyOf(listeners));
  }

  /** For callers that give every cycle its moment ({@link #runOnce(Instant, Cancellation)}). */
  public ConferenceRoomReaper(
      ReaperStore store,
      ConferenceRoomReaperOptions options,
      ReaperObserver observer,
      List<ConferenceEndedListener> listeners) {
    this(store, options, Clock.systemUTC(), observer, listeners);
  }

  public ConferenceRoomReaperOptions options() {
    return options;
  }

  /** The worker's clock (the loop measures its starts and waits on it). */
  public Clock clock() {
    return clock;
  }

  /**
   * When each phase next has a row to claim, read after a cycle by the next-due schedule ({@link
   * ReaperStore#dueTimes}). Throws {@link StoreException} when the database cannot answer.
   */
  public DueTimes dueTimes() {
    return store.dueTimes(clock, options);
  }

  /**
   * Runs one cycle at the moment of the configured clock ({@code reaper.clock}), read once at its
   * start, and commits what it decides. What the periodic loop and {@code run-once} call.
   */
  public CycleResult runOnce(Cancellation cancellation) {
    return run(null, cancellation, false);
  }

  /** Runs one cycle at {@code asOf} and commits what it decides. */
  public CycleResult runOnce(Instant asOf, Cancellation cancellation) {
    return run(asOf, cancellation, false);
  }

  /** Like {@link #runOnce(Cancellation)}, and rolls every batch back. */
  public CycleResult dryRun() {
    return run(null, Cancellation.NONE, true);
  }

  /**
   * Runs one cycle at {@code asOf} and rolls every batch back: reports what a real cycle would do.
   */
  public CycleResult dryRun(Instant asOf) {
    return run(asOf, Cancellation.NONE, true);
  }

  private CycleResult run(@Nullable Instant givenAsOf, Cancellation cancellation, boolean dryRun) {
    String jobRunId = UUID.randomUUID().toString();
    long start = System.nanoTime();
    // jobRunId (the correlation id) is on every log line of the cycle, the store's included, via
    // the MDC.
    MDC.put("jobRunId", jobRunId);
    try {
      Moment moment = givenAsOf != null ? new Moment(givenAsOf, null) : moment(cancellation);
      // PostgreSQL keeps microseconds: the event, ended_at and ce_time must be the same instant.
      Instant asOf = moment.asOf().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
      log.atInfo()
          .addKeyValue("asOf", asOf)
          .addKeyValue("clock", givenAsOf != null ? "given" : options.clock().label())
          .addKeyValue(
              "clockSkewMs", moment.reading() == null ? null : moment.reading().skew().toMillis())
          .addKeyValue("dryRun", dryRun)
          .log("cycle started");
      observer.cycleStarted(jobRunId, asOf);
      // After cycleStarted: the tracing observer has opened the cycle's span by now.
      String traceParent = traceContext.traceParent();
      cancellation.throwIfCancelled(Checkpoint.BEFORE_RUN_LOCK, null);
      Map<Phase, BatchOutcome> outcomes = new LinkedHashMap<>();
      boolean acquired;
      Set<Phase> paused;
      try (ReaperStore.RunLock lock = store.tryAcquireRunLock(options.lockTtl(), asOf, options)) {
        acquired = lock.acquired();
        // Read in the lock attempt's round trip: every runner obeys a pause from its next cycle,
        // and each batch's claim reads them again (a pause set meanwhile stops the phase there).
        PauseState pauses = lock.pauses();
        paused = pauses.pausedAt(asOf);
        observer.pausesRead(jobRunId, paused);
        if (acquired) {
          skipPaused(pauses, asOf);
          Set<Phase> pausedMeanwhile =
              phases.runPhases(
                  lock,
                  asOf,
                  new CycleOrigin(jobRunId, traceParent),
                  cancellation,
                  dryRun,
                  start,
                  outcomes,
                  paused);
          if (!pausedMeanwhile.isEmpty()) {
            Set<Phase> all = EnumSet.copyOf(pausedMeanwhile);
            all.addAll(paused);
            paused = all;
            observer.pausesRead(jobRunId, paused);
          }
        } else {
          log.atInfo().log("cycle skipped: run lock held by another runner");
        }
      }
      CycleResult result =
          result(jobRunId, asOf, acquired, outcomes, start, dryRun, acquired ? paused.size() : 0);
      log.atInfo()
          .addKeyValue("lockAcquired", result.lockAcquired())
          .addKeyValue("emptyTimeout", result.emptyTimeout())
          .addKeyValue("provisionFailed", result.provisionFailed())
          .addKeyValue("staleTimeout", result.staleTimeout())
          .addKeyValue("skippedLocked", result.skippedLocked())
          .addKeyValue("failed", result.poisoned())
          .addKeyValue("raceLost", result.raceLost())
          .addKeyValue("durationMs", result.durationMs())
          .addKeyValue("dryRun", dryRun)
          .addKeyValue("pausedPhases", result.pausedPhases())
          .log("cycle completed");
      observer.cycleCompleted(result);
      return result;
    } catch (java.util.concurrent.CancellationException e) {
      // A stop, not a failure: the batch rolled back (or committed) whole; nothing to count as an
      // error. Logged here, while the jobRunId is still on the line.
      log.atInfo().log("cycle cancelled by shutdown; its open batch was rolled back");
      observer.cycleCancelled(jobRunId);
      throw e;
    } catch (RuntimeException | Error e) {
      // The failure line carries the jobRunId like every other line of the cycle: it is the one an
      // operator needs to correlate. Callers do not log it again.
      log.atError()
          .setCause(e)
          .log("cycle failed; the batch was rolled back and the next cycle retries");
      observer.cycleFailed(jobRunId, e);
      throw e;
    } finally {
      MDC.remove("jobRunId");
    }
  }

  /** A cycle's moment and the clock reading behind its skew (null when not measured). */
  private record Moment(Instant asOf, @Nullable ClockReading reading) {}

  /**
   * The database's clock against the worker's, once per cycle, before anything else touches the
   * database. Under {@link ClockSource#DATABASE} it is the cycle's moment, so a failed reading
   * fails the cycle (never a silent fall-back to the worker's clock, which would void the
   * guarantee). Under {@link ClockSource#SYSTEM} the moment is the worker's clock, read first, and
   * the reading only measures the skew: when it fails the cycle goes on to the run lock (which
   * fails by itself if the database is down).
   */
  private Moment moment(Cancellation cancellation) {
    cancellation.throwIfCancelled(Checkpoint.BEFORE_CLOCK_READ, null);
    if (options.clock() == ClockSource.DATABASE) {
      ClockReading reading = store.readClock(clock);
      observer.clockRead(reading);
      return new Moment(reading.databaseTime(), reading);
    }
    Instant asOf = clock.instant();
    try {
      ClockReading reading = store.readClock(clock);
      observer.clockRead(reading);
      return new Moment(asOf, reading);
    } catch (StoreException e) {
      log.atDebug().setCause(e).log("clock skew not measured this cycle");
      return new Moment(asOf, null);
    }
  }

  /** One {@code phase paused} line per paused phase, with the pause's reason, end and actor. */
  private static void skipPaused(PauseState pauses, Instant asOf) {
    for (Phase phase : Phase.values()) {
      pauses
          .pausing(phase, asOf)
          .ifPresent(
              p ->
                  log.atInfo()
                      .addKeyValue("phase", phase.label())
                      .addKeyValue("scope", p.scope())
                      .addKeyValue("reason", p.reason())
                      .addKeyValue("until", p.until())
                      .addKeyValue("actor", p.actor())
                      .addKeyValue("pausedAt", p.pausedAt())
                      .log("phase paused"));
    }
  }

  private static CycleResult result(
      String jobRunId,
      Instant asOf,
      boolean acquired,
      Map<Phase, BatchOutcome> outcomes,
      long start,
      boolean dryRun,
      int pausedPhases) {
    BatchOutcome all = outcomes.values().stream().reduce(BatchOutcome.EMPTY, BatchOutcome::plus);
    return new CycleResult(
        jobRunId,
        asOf,
        acquired,
        outcomes.getOrDefault(Phase.EMPTY_ROOM, BatchOutcome.EMPTY).closed(),
        outcomes.getOrDefault(Phase.PROVISION_TIMEOUT, BatchOutcome.EMPTY).closed(),
        outcomes.getOrDefault(Phase.STALE_LIVE, BatchOutcome.EMPTY).closed(),
        all.skippedLocked(),
        all.poisoned(),
        all.raceLost(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        dryRun,
        pausedPhases);
  }
}
