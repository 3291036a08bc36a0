package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.MessengerLoad;

/**
 * Scenario database faults, from outside: two worker processes and the messenger's commands
 * (MessengerLoad) run against a PostgreSQL server of its own while the test (a) ends every reaper
 * session with {@code pg_terminate_backend} at a moment the run lock is held (so the holder's
 * backend is among them), several times, and (b) restarts the server ({@code pg_ctl restart -m
 * fast}). The workers are never restarted: after each fault the next completed cycle must come
 * within {@link #RECOVERY_BOUND}, and the invariant checker finds nothing. Fast: 4 terminations + 1
 * restart; {@code -Dreaper.soak=true}: 15 + 4. The server is whichever {@link
 * PostgresServer#start()} picks (Debian's 15 or zonky's 17): both are {@code pg_ctl} servers, so
 * the scenario runs wherever the build does.
 */
class DatabaseFaultsIT {
  static final Duration INTERVAL = ReliabilityHarness.INTERVAL;

  /**
   * Recovery bound: 2 polling intervals + 3 s. The tick after a fault may still be handed a pooled
   * connection the fault killed (Hikari re-validates a connection only when it has been idle for
   * more than 500 ms), and fails; the tick after it gets a new connection: 2 intervals. The 3 s
   * cover the recovering cycle's own run time and tick jitter of two worker JVMs, the test JVM and
   * the server sharing a 2-core machine with other builds (the test suite runs three test JVMs side
   * by side). A worker that waits out the pool's 5 s connection-timeout, or needs a restart, still
   * fails it. For the restart the clock starts when the server accepts connections again (pg_ctl -w
   * returned): no worker can do anything before that.
   */
  static final Duration RECOVERY_BOUND = INTERVAL.multipliedBy(2).plusSeconds(3);

  /**
   * Extra worker options, none by default: the workers run with the shipped pool settings (Hikari,
   * pool size 4, connection-timeout 5 s from application.properties). Recovery needs nothing else:
   * Hikari drops the connections the fault broke (SQLSTATE 57P01 / 08006 mark them broken; the
   * others fail the liveness check a borrow makes after 500 ms idle) and opens new ones; the loop
   * survives the failed cycle and ticks again. A lower connection-timeout (tried: 1000 ms) changed
   * nothing measurable. {@code -Dreaper.faults.pool="--spring.datasource.hikari.x=y ..."} tries
   * other settings.
   */
  static final String[] POOL = options(System.getProperty("reaper.faults.pool", ""));

  private static String[] options(String s) {
    return s.isBlank() ? new String[0] : s.trim().split("\\s+");
  }

  /**
   * A cycle is mid-batch: the run lock is held and a reaper session holds claimed rows (FOR UPDATE
   * / UPDATE locks on conference_sessions) in an open transaction.
   */
  static final String MID_BATCH =
      """
      WITH holder AS (
        SELECT l.pid FROM pg_locks l
         WHERE l.locktype = 'advisory' AND l.granted
           AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended('messenger.conference_room_reaper', 0)),
      batch AS (
        SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a USING (pid)
         WHERE l.relation = 'messenger.conference_sessions'::regclass AND l.granted
           AND l.mode IN ('RowShareLock', 'RowExclusiveLock') AND a.application_name = 'conference-room-reaper')
      """;

  /**
   * {@code SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name =
   * 'conference-room-reaper'}, in one statement with the mid-batch condition, so it fires only at
   * such a moment. Returns per ended session whether it held the run lock, and the server's clock
   * at the termination.
   */
  static final String TERMINATE_MID_BATCH =
      MID_BATCH
          + """
          SELECT a.pid, a.pid IN (SELECT pid FROM holder) AS holder, pg_terminate_backend(a.pid) AS terminated,
                 clock_timestamp() AS at
            FROM pg_stat_activity a
           WHERE a.application_name = 'conference-room-reaper'
             AND EXISTS (SELECT 1 FROM holder) AND EXISTS (SELECT 1 FROM batch)
          """;

  static final String IS_MID_BATCH =
      MID_BATCH + "SELECT EXISTS (SELECT 1 FROM holder) AND EXISTS (SELECT 1 FROM batch)";

  record Recovery(String fault, long lockCycleMs, Map<String, Long> workerMs) {
    long worst() {
      return Math.max(
          lockCycleMs, workerMs.values().stream().mapToLong(Long::longValue).max().orElse(0));
    }
  }

  @Test
  void workers_recover_from_terminated_sessions_and_a_server_restart_without_being_restarted()
      throws Exception {
    int terminations = ReliabilityHarness.SOAK ? 15 : 4;
    int restarts = ReliabilityHarness.SOAK ? 4 : 1;
    long seed = Long.getLong("reaper.seed", System.nanoTime());
    Random random = new Random(seed);
    try (ReliabilityHarness h = ReliabilityHarness.start()) {
      Instant start = Instant.now();
      List<UUID> ids = MessengerLoad.seed(h.rooms, 3_000, start);
      ReaperWorker a = h.worker("A", POOL);
      ReaperWorker b = h.worker("B", POOL);
      List<ReaperWorker> workers = List.of(a, b);
      List<Recovery> recoveries = new ArrayList<>();
      int holderHits = 0;
      int terminated = 0;
      long loadCommands;
      long loadApplied;
      long loadErrors;
      Instant recovered;
      try (HikariDataSource loadPool = h.commandPool();
          MessengerLoad load = new MessengerLoad(loadPool, ids).start(4, seed);
          // A trickle of overdue rooms, so that cycles do real batches when the faults hit.
          ReliabilityHarness.Feeder feeder = h.feed(100, Duration.ofMillis(500), 5_000, seed)) {
        for (ReaperWorker w : workers) {
          w.awaitStarted(Duration.ofSeconds(120));
        }
        awaitCycle(workers, Instant.now(), Duration.ofSeconds(30));
        Thread.sleep(2_000); // the seeded backlog is drained; commands and cycles interleave

        try (Connection admin = h.dataSource.getConnection();
            PreparedStatement terminate = admin.prepareStatement(TERMINATE_MID_BATCH)) {
          for (int i = 0; i < terminations; i++) {
            Instant faultAt = null;
            boolean hitHolder = false;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (faultAt == null) {
              try (ResultSet rs = terminate.executeQuery()) {
                while (rs.next()) {
                  Instant at = rs.getObject("at", OffsetDateTime.class).toInstant();
                  faultAt = faultAt == null || at.isBefore(faultAt) ? at : faultAt;
                  hitHolder |= rs.getBoolean("holder");
                  terminated++;
                }
              }
              if (faultAt == null) {
                assertThat(System.nanoTime())
                    .as("a cycle mid-batch within 30 s")
                    .isLessThan(deadline);
                Thread.sleep(2);
              }
            }
            if (hitHolder) {
              holderHits++;
            }
            recoveries.add(awaitRecovery("terminate#" + (i + 1), workers, faultAt, faultAt));
            Thread.sleep(500 + random.nextInt(1500));
          }
        }

        for (int i = 0; i < restarts; i++) {
          awaitMidBatch(h, Duration.ofSeconds(30)); // restart mid-run: while a cycle is in a batch
          Instant restartAt =
              Instant.now(); // (pg_ctl starts the fast shutdown some 10-100 ms later)
          h.server.restart();
          Instant upAt = Instant.now();
          Recovery r = awaitRecovery("restart#" + (i + 1), workers, restartAt, upAt);
          System.out.printf(
              "database-faults: restart#%d server down+up %d ms, recovery after up %d ms%n",
              i + 1, Duration.between(restartAt, upAt).toMillis(), r.worst());
          recoveries.add(r);
          Thread.sleep(1_000 + random.nextInt(1500));
        }
        recovered = Instant.now();
        Thread.sleep(3_000); // steady state again: the SLO binds rooms that become due from here on
        loadCommands = load.commands.get();
        loadApplied = load.applied.get();
        loadErrors = load.errors.get();
      }
      for (ReaperWorker w : workers) {
        assertThat(w.alive()).as(w.name + " still running").isTrue();
        assertThat(w.generation()).as(w.name + " never restarted").isZero();
      }
      Instant settledAt = h.settle(Duration.ofSeconds(60));
      h.stopWorkers();

      List<String> violations = h.violations(settledAt, recovered);
      InvariantChecker.Figures f = h.figures();
      long failedCycles =
          workers.stream()
              .flatMap(w -> w.cycles().stream())
              .filter(c -> c.kind().equals("failed"))
              .count();
      long worst = recoveries.stream().mapToLong(Recovery::worst).max().orElse(0);
      System.out.printf(
          "scenario database-faults: conferences=%d runners=2 faults=%d (terminations=%d holderHit=%d restarts=%d)"
              + " failedCycles=%d recoveryMaxMs=%d boundMs=%d commands=%d commandsApplied=%d commandErrors=%d reaperClosed=%d"
              + " sessionsTerminated=%d seed=%d violations=%d%n",
          f.conferences(),
          terminations + restarts,
          terminations,
          holderHits,
          restarts,
          failedCycles,
          worst,
          RECOVERY_BOUND.toMillis(),
          loadCommands,
          loadApplied,
          loadErrors,
          f.ended() + f.failed(),
          terminated,
          seed,
          violations.size());
      recoveries.forEach(
          r ->
              System.out.printf(
                  "database-faults: %s first lock-holding cycle after %d ms, per worker %s%n",
                  r.fault(), r.lockCycleMs(), r.workerMs()));
      assertThat(violations).isEmpty();
      assertThat(holderHits)
          .as("the lock holder's backend was among the terminated")
          .isEqualTo(terminations);
      assertThat(failedCycles).as("the faults did hit running cycles").isPositive();
      assertThat(loadApplied).isPositive();
      assertThat(recoveries)
          .allSatisfy(
              r ->
                  assertThat(r.worst())
                      .as(r.toString())
                      .isLessThanOrEqualTo(RECOVERY_BOUND.toMillis()));
    }
  }

  private static void awaitMidBatch(ReliabilityHarness h, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Connection c = h.dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(IS_MID_BATCH)) {
      while (true) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getBoolean(1)) {
            return;
          }
        }
        assertThat(System.nanoTime())
            .as("a cycle mid-batch within " + timeout)
            .isLessThan(deadline);
        Thread.sleep(2);
      }
    }
  }

  /** Waits until every worker has completed a cycle that started after {@code from}. */
  private static void awaitCycle(List<ReaperWorker> workers, Instant from, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!workers.stream()
        .allMatch(
            w -> w.firstCycle(c -> c.completed() && !c.startedAt().isBefore(from)).isPresent())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no completed cycle of every worker within " + timeout);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Recovery after a fault at {@code faultAt}, measured from {@code from}: the first completed
   * cycle that held the run lock (either worker), and per worker its first completed cycle (holding
   * the lock or finding it held: both mean it talked to the server again). Only cycles that began
   * at or after the fault count (a cycle that was already past its last statement when the fault
   * hit proves nothing).
   */
  private static Recovery awaitRecovery(
      String fault, List<ReaperWorker> workers, Instant faultAt, Instant from)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      Optional<Long> lockCycle = Optional.empty();
      Map<String, Long> perWorker = new LinkedHashMap<>();
      for (ReaperWorker w : workers) {
        Optional<ReaperWorker.CycleEvent> any =
            w.firstCycle(
                c -> c.completed() && !c.startedAt().isBefore(faultAt) && !c.at().isBefore(from));
        any.ifPresent(c -> perWorker.put(w.name, Duration.between(from, c.at()).toMillis()));
        Optional<ReaperWorker.CycleEvent> locked =
            w.firstCycle(
                c ->
                    c.completed()
                        && c.lockAcquired()
                        && !c.startedAt().isBefore(faultAt)
                        && !c.at().isBefore(from));
        if (locked.isPresent()) {
          long ms = Duration.between(from, locked.get().at()).toMillis();
          lockCycle = Optional.of(lockCycle.map(m -> Math.min(m, ms)).orElse(ms));
        }
      }
      if (lockCycle.isPresent() && perWorker.size() == workers.size()) {
        return new Recovery(fault, lockCycle.get(), perWorker);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            fault
                + ": no recovery within 60 s (lock cycle "
                + lockCycle
                + ", workers "
                + perWorker
                + "); logs "
                + workers.stream().map(w -> w.log.toString()).toList());
      }
      Thread.sleep(20);
    }
  }
}
