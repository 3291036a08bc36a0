package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.MessengerLoad;

/**
 * Scenario crash, from outside: two worker processes drain a large backlog (10,000 seeded
 * conferences, kept topped up by a feeder) while the test kills the one that is reaping with
 * SIGKILL ({@code Process.destroyForcibly()}) at a random moment 300–2500 ms after it started
 * reaping, and restarts it. The kill lands in an open batch transaction now and then (counted from
 * pg_locks a moment before it: rows claimed, or written and not committed). No half batch (every
 * close has its outbox rows, no outbox row without its close), nothing lost (nothing due left once
 * the restarted workers have drained), nothing twice (one realtime row and one conference-ended row
 * per close): the invariant checker finds nothing. Fast: 6 kills; {@code -Dreaper.soak=true}: 20.
 * {@code -Dreaper.seed=N} repeats a run's kill moments.
 */
class CrashIT {
  /**
   * The victim's open batch transaction, if any: rows claimed (FOR UPDATE: RowShareLock on
   * conference_sessions) and whether its writes already ran (the batch UPDATE: RowExclusiveLock),
   * not yet committed.
   */
  static final String BATCH_STATE =
      """
      SELECT coalesce(bool_or(l.mode IN ('RowShareLock', 'RowExclusiveLock')), false) AS claimed,
             coalesce(bool_or(l.mode = 'RowExclusiveLock'), false) AS written
        FROM pg_locks l JOIN pg_stat_activity a USING (pid)
       WHERE a.application_name = ? AND l.granted AND l.relation = 'messenger.conference_sessions'::regclass
      """;

  @Test
  void workers_killed_mid_drain_lose_nothing_and_close_nothing_twice() throws Exception {
    int kills = ReliabilityHarness.SOAK ? 20 : 6;
    long seed = Long.getLong("reaper.seed", System.nanoTime());
    Random random = new Random(seed);
    try (ReliabilityHarness h = ReliabilityHarness.start()) {
      ReaperWorker a =
          h.worker(
              "A", "--spring.datasource.hikari.data-source-properties.ApplicationName=reaper-A");
      ReaperWorker b =
          h.worker(
              "B", "--spring.datasource.hikari.data-source-properties.ApplicationName=reaper-B");
      MessengerLoad.seed(h.rooms, 10_000, Instant.now()); // while the workers start
      List<ReaperWorker> workers = List.of(a, b);
      int killedInOpenBatch = 0;
      int killedAfterWrites = 0;
      StringBuilder killLog = new StringBuilder();
      Instant killsEnded;
      // Keeps the backlog at ~10,000: the drain lasts through every kill instead of ending after ~7
      // s.
      try (ReliabilityHarness.Feeder feeder = h.feed(2_000, Duration.ofMillis(500), 10_000, seed);
          Connection admin = h.dataSource.getConnection();
          PreparedStatement batchState = admin.prepareStatement(BATCH_STATE)) {
        for (int k = 0; k < kills; k++) {
          ReaperWorker victim = awaitReaping(workers, Duration.ofSeconds(120));
          long delayMs = 300 + random.nextInt(2201);
          long killAt = victim.reapingSinceNanos() + TimeUnit.MILLISECONDS.toNanos(delayMs);
          long wait = killAt - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
          // What the victim's sessions hold the moment before the kill (one round trip on an open
          // connection).
          batchState.setString(1, "reaper-" + victim.name);
          boolean claimed;
          boolean written;
          try (ResultSet rs = batchState.executeQuery()) {
            rs.next();
            claimed = rs.getBoolean("claimed");
            written = rs.getBoolean("written");
          }
          victim.kill(); // SIGKILL: no shutdown hook, no rollback from the worker; the server must
          // clean up
          killedInOpenBatch += claimed ? 1 : 0;
          killedAfterWrites += written ? 1 : 0;
          killLog.append(
              String.format(
                  " %s@%dms%s",
                  victim.name,
                  delayMs,
                  written ? "(batch written, not committed)" : claimed ? "(rows claimed)" : ""));
          victim.restart();
        }
        killsEnded = Instant.now();
        assertThat(feeder.errors.get()).isZero();
      }
      // Settle: the restarted workers drain what is left (whichever is up first starts; both must
      // come back).
      Instant settledAt = h.settle(Duration.ofSeconds(120));
      for (ReaperWorker w : workers) {
        w.awaitStarted(Duration.ofSeconds(120));
      }
      h.stopWorkers();
      System.out.println("crash: kills done " + killsEnded + ", nothing due " + settledAt);

      // The SLO binds only rooms that became due after the kills (none here: every seeded or fed
      // room was overdue
      // already); a room due while both workers were down cannot meet it.
      List<String> violations = h.violations(settledAt, killsEnded);
      InvariantChecker.Figures f = h.figures();
      long itemFailed = workers.stream().mapToLong(w -> w.itemFailedLines.get()).sum();
      System.out.printf(
          "scenario crash: conferences=%d runners=2 kills=%d killedInOpenBatch=%d killedAfterWrites=%d restarts=%d"
              + " reaperClosed=%d failed=%d stillActive=%d itemFailed=%d seed=%d violations=%d%n",
          f.conferences(),
          kills,
          killedInOpenBatch,
          killedAfterWrites,
          a.generation() + b.generation(),
          f.ended() + f.failed(),
          f.failed(),
          f.active(),
          itemFailed,
          seed,
          violations.size());
      System.out.println("crash kills:" + killLog + "; logs " + a.log + " " + b.log);
      assertThat(violations).isEmpty();
      assertThat(a.generation() + b.generation()).as("a restart per kill").isEqualTo(kills);
      assertThat(f.ended() + f.failed()).isGreaterThanOrEqualTo(6_000);
      assertThat(itemFailed).as("no poison rows in this data").isZero();
    }
  }

  /** The worker that is reaping now (a "conference reaped" line within the last 300 ms). */
  static ReaperWorker awaitReaping(List<ReaperWorker> workers, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (ReaperWorker w : workers) {
        if (w.reapingWithin(Duration.ofMillis(300))) {
          return w;
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError(
        "no worker reaping within "
            + timeout
            + ": "
            + workers.stream()
                .map(w -> w.name + (w.alive() ? " alive" : " dead") + "\n" + w.tail(20))
                .toList());
  }
}
