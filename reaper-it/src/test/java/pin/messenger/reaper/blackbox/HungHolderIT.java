package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.MessengerLoad;

/**
 * Scenario hung holder, from outside: of two workers, the one holding the run lock in the middle of
 * a long drain is frozen with SIGSTOP (a hung process: its sockets stay open, it says nothing). The
 * other must hold the lock within {@link #TAKEOVER_BOUND}: the server ends the frozen one's
 * sessions once they have been idle in their transaction for lock-ttl ({@code
 * idle_in_transaction_session_timeout}), which frees the lock and its claimed rows. Then SIGCONT:
 * the frozen one resumes in the middle of its cycle and must do no harm — its cycle fails (lock
 * lost / connection ended) or it skips, and the invariant checker finds no double close. Which JVM
 * holds the lock is told by the holder's application_name (reaper-A / reaper-B). Fast: 1 freeze (of
 * whichever holds the lock, usually A); {@code -Dreaper.soak=true}: 6, each of the holder at that
 * moment (it alternates: the other takes over).
 */
class HungHolderIT {
  static final Duration TTL = ReliabilityHarness.LOCK_TTL;
  static final Duration INTERVAL = ReliabilityHarness.INTERVAL;

  /**
   * lock-ttl + polling interval + 1 s. The server ends the frozen holder's lock session lock-ttl
   * after its last statement (at the latest the moment of SIGSTOP); B's next tick is at most one
   * interval later. The 1 s covers B's tick jitter and the acquiring cycle's first statement on a
   * busy 2-core machine, and the 50 ms pg_locks poll.
   */
  static final Duration TAKEOVER_BOUND = TTL.plus(INTERVAL).plusSeconds(1);

  record Freeze(
      String frozen,
      long takeoverMs,
      long frozenSessionsEndedMs,
      String afterResume,
      long closedWithoutLock) {}

  @Test
  void a_frozen_lock_holder_loses_the_lock_after_its_ttl_and_does_no_harm_when_it_resumes()
      throws Exception {
    int rounds = ReliabilityHarness.SOAK ? 6 : 1;
    try (ReliabilityHarness h = ReliabilityHarness.start()) {
      Instant start = Instant.now();
      MessengerLoad.seed(h.rooms, 10_000, start);
      List<Freeze> freezes = new ArrayList<>();
      Instant lastResume;
      // Keeps the backlog at ~8,000: whoever holds the lock is always mid-drain (3 s cycles back to
      // back).
      try (ReliabilityHarness.Feeder feeder = h.feed(1_000, Duration.ofMillis(500), 8_000, 42)) {
        // A first, alone, until it holds the lock; then B. Whoever holds the lock keeps it while
        // the drain lasts (its next cycle starts right after the previous one), but B may take it
        // in the gap between two of A's cycles and keep it from then on: the one frozen is
        // whoever holds the lock at that moment, not a name chosen beforehand (a run on a loaded
        // machine had B take the lock at its first tick and never find it held).
        ReaperWorker a =
            h.worker(
                "A", "--spring.datasource.hikari.data-source-properties.ApplicationName=reaper-A");
        a.awaitStarted(Duration.ofSeconds(120));
        awaitHolder(h, "reaper-A", Duration.ofSeconds(30));
        ReaperWorker b =
            h.worker(
                "B", "--spring.datasource.hikari.data-source-properties.ApplicationName=reaper-B");
        b.awaitStarted(Duration.ofSeconds(120));
        awaitCycle(b, Duration.ofSeconds(30));

        for (int round = 0; round < rounds; round++) {
          ReaperWorker frozen;
          ReaperWorker other;
          String frozenApp;
          String otherApp;
          Instant stoppedAt;
          int frozenPid;
          while (true) {
            frozenApp = awaitSomeHolder(h, Duration.ofSeconds(60));
            frozen = frozenApp.equals("reaper-A") ? a : b;
            other = frozen == a ? b : a;
            otherApp = "reaper-" + other.name;
            frozen.signal("STOP");
            stoppedAt = Instant.now();
            Optional<ReliabilityHarness.Holder> still = h.holder();
            if (still.isPresent() && still.get().application().equals(frozenApp)) {
              frozenPid = still.get().pid();
              break; // frozen while holding the lock
            }
            frozen.signal("CONT"); // it let go between the two looks; try again
          }
          // B takes over once the server has ended A's idle-in-transaction sessions.
          long takeoverMs = -1;
          long endedMs = -1;
          long deadline = System.nanoTime() + TAKEOVER_BOUND.multipliedBy(3).toNanos();
          while (System.nanoTime() < deadline && (takeoverMs < 0 || endedMs < 0)) {
            long now = Duration.between(stoppedAt, Instant.now()).toMillis();
            Optional<ReliabilityHarness.Holder> holder = h.holder();
            assertThat(holder.map(ReliabilityHarness.Holder::application).orElse(otherApp))
                .as("nobody but the frozen worker or the other one holds the lock")
                .isIn(frozenApp, otherApp);
            if (takeoverMs < 0
                && holder.isPresent()
                && holder.get().application().equals(otherApp)) {
              takeoverMs = now;
            }
            if (endedMs < 0
                && h.rooms.count("SELECT count(*) FROM pg_stat_activity WHERE pid = ?", frozenPid)
                    == 0) {
              endedMs = now;
            }
            Thread.sleep(50);
          }
          assertThat(frozen.alive()).isTrue();
          // What the frozen worker printed before SIGSTOP has been read.
          frozen.awaitOutputRead(Duration.ofSeconds(30));
          Instant resumedAt = Instant.now();
          frozen.mark(resumedAt);
          frozen.signal("CONT");
          // What the frozen worker's in-flight cycle does when it resumes: its first cycle event
          // after SIGCONT.
          ReaperWorker.CycleEvent next = awaitEvent(frozen, resumedAt, Duration.ofSeconds(30));
          String afterResume = describe(next, stoppedAt);
          long closedWithoutLock = frozen.closedAfterMark();
          freezes.add(new Freeze(frozen.name, takeoverMs, endedMs, afterResume, closedWithoutLock));
          System.out.printf(
              "hung-holder: froze %s (pid %d, backend %d) holding the lock; its backend ended after %d ms;"
                  + " %s holds the lock after %d ms; on resume: %s; rows it claimed and closed after resuming: %d%n",
              frozen.name,
              frozen.pid(),
              frozenPid,
              endedMs,
              other.name,
              takeoverMs,
              afterResume,
              closedWithoutLock);
          assertThat(takeoverMs)
              .as("takeover by " + other.name)
              .isBetween(0L, TAKEOVER_BOUND.toMillis());
          // It fails (lock lost or its batch connection ended) or merely reports the cycle it had
          // finished before
          // the freeze; never a cycle that closed rows after the lock was gone (the checker proves
          // no double close).
          assertThat(afterResume)
              .as(next.line())
              .matches("failed: .*|completed before the freeze.*|skipped");
          assertThat(closedWithoutLock)
              .as("rows the resumed worker claimed and closed without the run lock")
              .isZero();
          ReaperWorker resumed = frozen;
          ReaperWorker taker = other;
          // Both run on: the resumed one cycles again (skipping while the other drains), the other
          // completes a cycle.
          Await.until(
              "both run on after " + frozen.name + " resumes",
              Duration.ofSeconds(30),
              () -> resumed.completedSince(resumedAt) > 0 && taker.completedSince(resumedAt) > 0,
              () -> "; " + resumed.name + ":\n" + resumed.tail(20));
        }
        lastResume = Instant.now();
        assertThat(feeder.errors.get()).isZero();
      }
      Instant settledAt = h.settle(Duration.ofSeconds(60));
      h.stopWorkers();

      // The SLO binds rooms that became due after the last resume (the lock was unavailable for up
      // to lock-ttl while
      // a holder hung, which no room due then can meet): none here, every seeded or fed room was
      // overdue already.
      List<String> violations = h.violations(settledAt, lastResume);
      InvariantChecker.Figures f = h.figures();
      long maxTakeover = freezes.stream().mapToLong(Freeze::takeoverMs).max().orElse(-1);
      System.out.printf(
          "scenario hung-holder: conferences=%d runners=2 faults=%d (SIGSTOP of the lock holder) takeoverMaxMs=%d"
              + " boundMs=%d closedWithoutLockAfterResume=%d reaperClosed=%d stillActive=%d violations=%d%n",
          f.conferences(),
          freezes.size(),
          maxTakeover,
          TAKEOVER_BOUND.toMillis(),
          freezes.stream().mapToLong(Freeze::closedWithoutLock).sum(),
          f.ended() + f.failed(),
          f.active(),
          violations.size());
      assertThat(violations).isEmpty();
    }
  }

  private static void awaitHolder(ReliabilityHarness h, String application, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (h.holder().map(x -> !x.application().equals(application)).orElse(true)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            application
                + " did not hold the run lock within "
                + timeout
                + " (holder: "
                + h.holder()
                + ")");
      }
      Thread.sleep(20);
    }
  }

  /** Waits until {@code w} has logged a cycle (skipped or run): it is contending for the lock. */
  private static void awaitCycle(ReaperWorker w, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (w.firstCycle(e -> true).isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(w.name + " logged no cycle within " + timeout);
      }
      Thread.sleep(20);
    }
  }

  /** The application name of whichever worker (reaper-A or reaper-B) holds the run lock. */
  private static String awaitSomeHolder(ReliabilityHarness h, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<String> app =
          h.holder()
              .map(ReliabilityHarness.Holder::application)
              .filter(x -> x.equals("reaper-A") || x.equals("reaper-B"));
      if (app.isPresent()) {
        return app.get();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("neither worker held the run lock within " + timeout);
      }
      Thread.sleep(20);
    }
  }

  /**
   * The first cycle event the worker logs at or after {@code from} (its log timestamps are its own
   * clock).
   */
  private static ReaperWorker.CycleEvent awaitEvent(ReaperWorker w, Instant from, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<ReaperWorker.CycleEvent> e = w.firstCycle(c -> !c.at().isBefore(from));
      if (e.isPresent()) {
        return e.get();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            w.name + " logged no cycle event within " + timeout + " of SIGCONT:\n" + w.tail(20));
      }
      Thread.sleep(20);
    }
  }

  private static String describe(ReaperWorker.CycleEvent e, Instant stoppedAt) {
    if (!e.completed()) {
      return "failed: " + errorOf(e.line());
    }
    if (e.skipped()) {
      return "skipped";
    }
    return e.startedAt().isBefore(stoppedAt)
        ? "completed before the freeze (closed " + e.closed() + ")"
        : "completed holding the lock (closed " + e.closed() + ")";
  }

  private static String errorOf(String line) {
    try {
      String message = com.jayway.jsonpath.JsonPath.read(line, "$.error.message");
      return message;
    } catch (RuntimeException e) {
      return line;
    }
  }
}
