package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * Section {@code shipped-cycle}: the default cycle and the idle cycle's buffers per live room, as
 * shipped (the production jar via {@code bin/reaper}, INFO logging into a pipe), on databases of
 * its own on the bench's server. No maintained harness fits: the worker runs as a process, and the
 * figures are its own cycle durations and the buffers PostgreSQL counted for it.
 */
final class ShippedCycleBench {
  private final BenchServer server;
  private final BenchReport report;

  ShippedCycleBench(BenchServer server, BenchReport report) {
    this.server = server;
    this.report = report;
  }

  void run() throws Exception {
    ShippedRun shipped = ShippedRun.prepare("shipped-cycle", server);
    report.line("\n## The default and the idle cycle as shipped (production jar via bin/reaper)");
    defaultCycle(shipped);
    idleBuffers(shipped);
  }

  /**
   * The default cycle as shipped: 100 due in each phase, default options, the worker's own {@code
   * durationMs} of the cycle that closes them; a fresh {@code run-once} per repetition, then one
   * warm {@code run} worker (polling every second, otherwise defaults) given the same rows while it
   * runs. Median of 5 each, after one unmeasured repetition.
   */
  private void defaultCycle(ShippedRun shipped) throws Exception {
    int reps = 5;
    String db = "shipped_cycle";
    server.recreate(db);
    BenchData data = new BenchData(server.dataSource(db));
    SchemaMigrations.migrate(server.dataSource(db));
    data.liveRooms(1000);
    data.history(100_000);
    List<Double> fresh = new ArrayList<>();
    for (int rep = 0; rep <= reps; rep++) {
      commitDueInEachPhase(db);
      Child.Exit exit =
          shipped.toExit(db, "cycle-" + rep, List.of("run-once"), Duration.ofMinutes(5));
      if (exit.status() != 0) {
        throw new IllegalStateException(
            "run-once for the default cycle failed; see " + shipped.logs());
      }
      String[] lines = exit.output().strip().split("\n");
      String document = lines[lines.length - 1];
      if (WorkerLog.closed(document) != 300) {
        throw new IllegalStateException(
            "default cycle: run-once closed other than 300: " + document);
      }
      if (rep > 0) {
        fresh.add((double) WorkerLog.field(document, "durationMs"));
      }
    }
    List<Double> warm = new ArrayList<>();
    Process worker =
        shipped.start(
            db, "cycle-warm", List.of("run", "--reaper.polling-interval=1s", "--server.port=0"));
    BlockingQueue<String> completed = new LinkedBlockingQueue<>();
    ChildOutput out =
        ChildOutput.follow(
            worker,
            "shipped-cycle-stdout",
            (line, at) -> {
              if (line.contains(WorkerLog.CYCLE_COMPLETED) && WorkerLog.closed(line) > 0) {
                completed.add(line);
              }
            });
    try {
      for (int rep = 0; rep < reps + 3; rep++) {
        commitDueInEachPhase(db);
        String line = completed.poll(2, TimeUnit.MINUTES);
        if (line == null || WorkerLog.closed(line) != 300) {
          throw new IllegalStateException("warm default cycle: " + line);
        }
        if (rep >= 3) {
          warm.add((double) WorkerLog.field(line, "durationMs"));
        }
      }
    } finally {
      Child.stop(worker, Duration.ofSeconds(60));
      out.join(10_000);
    }
    double f = BenchReport.median(fresh);
    double w = BenchReport.median(warm);
    report.line(
        String.format(
            "%n### Default cycle (100 due in each phase, default options; 1,000 live rooms,"
                + " 100k history; the worker's own durationMs, median of %d)%n"
                + "| shape | cycles (ms) | median ms |%n|---|---|---:|%n"
                + "| fresh run-once | %s | %.0f |%n| warm run (3 cycles' warm-up) | %s | %.0f |%n"
                + "target: default cycle <= 25 ms median (warm): %.0f ms, %s",
            reps, fresh, f, warm, w, w, BenchReport.atMost(w, 25, "%.0f ms")));
  }

  /** 100 due in each phase, committed in one transaction. */
  private void commitDueInEachPhase(String db) throws SQLException {
    try (Connection c = server.dataSource(db).getConnection()) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        for (String sql : BenchData.backlogInOneTransaction(100)) {
          st.execute(sql);
        }
        for (String sql : BenchData.provisionAndStaleDue(100)) {
          st.execute(sql);
        }
      }
      c.commit();
    }
  }

  /**
   * The idle cycle's shared buffers per live room, as shipped: {@code run-once} with nothing due,
   * counted by the database itself ({@code blks_hit + blks_read} of {@code pg_stat_database} before
   * the process and after its backends have ended, which flushes their counters). Two databases of
   * 100k rows each: one with 1,000 live rooms, each among 99 terminal rows (a heap page of its own,
   * as in IdleCycleBuffersTest), and one with the same rows all terminal; the difference over 1,000
   * is the cost per live room, the second database's figure the process's fixed cost (new
   * connections' catalog reads, the Flyway check, the run lock, the delivery pass). The pool is
   * kept to the connections the command asks for ({@code minimum-idle=1}). Median of 5.
   */
  private void idleBuffers(ShippedRun shipped) throws Exception {
    int live = 1000;
    List<Double> perRoom = new ArrayList<>();
    List<Long> fixed = new ArrayList<>();
    idleDatabase("shipped_idle", live);
    idleDatabase("shipped_idle0", 0);
    for (int rep = 0; rep <= 5; rep++) {
      long withLive = idleRunOnce(shipped, "shipped_idle", rep);
      long without = idleRunOnce(shipped, "shipped_idle0", rep);
      if (rep > 0) {
        perRoom.add((withLive - without) / (double) live);
        fixed.add(without);
      }
    }
    double m = BenchReport.median(perRoom);
    report.line(
        String.format(
            "%n### Idle cycle's shared buffers per live room (run-once, nothing due, %,d live rooms"
                + " each among 99 terminal rows, against the same 100k rows with none live;"
                + " pg_stat_database blks_hit + blks_read per process, one pooled connection)%n"
                + "per live room: %s, median %.3f; the process's fixed cost: %s buffers%n"
                + "target: <= 1.2 buffer visits per live room per cycle: %.3f, %s",
            live,
            perRoom.stream().map(x -> String.format("%.3f", x)).toList(),
            m,
            fixed,
            m,
            BenchReport.atMost(m, 1.2, "%.3f")));
  }

  /** 100k rows: every 100th a live room ({@code live} of them), the rest terminal. */
  private void idleDatabase(String db, int live) throws SQLException {
    server.recreate(db);
    SchemaMigrations.migrate(server.dataSource(db));
    BenchData data = new BenchData(server.dataSource(db));
    data.exec(
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, end_reason, started_by_user_id, created_at,
           started_at, ended_at, last_activity_at, updated_at, active_participant_count, peak_participant_count,
           duration_seconds)
        SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video',
               CASE WHEN g.live THEN 'Active' ELSE 'Ended' END,
               CASE WHEN g.live THEN NULL ELSE 'Completed' END, gen_random_uuid(),
               now() - interval '3 days', now() - interval '3 days',
               CASE WHEN g.live THEN NULL ELSE now() - interval '2 days' END,
               CASE WHEN g.live THEN now() + interval '1 hour' ELSE now() - interval '2 days' END,
               now(), CASE WHEN g.live THEN 2 ELSE 0 END, 3,
               CASE WHEN g.live THEN NULL ELSE 3000 END
          FROM (SELECT i %% 100 = 0 AND i / 100 <= %d AS live FROM generate_series(1, 100000) AS i) g
        """
            .formatted(live));
    data.exec("VACUUM ANALYZE messenger.conference_sessions");
    data.exec("CHECKPOINT");
  }

  /** The shared buffers one {@code run-once} visited in {@code db}. */
  private long idleRunOnce(ShippedRun shipped, String db, int rep) throws Exception {
    long before = buffers(db);
    // One pooled connection: the pool otherwise opens up to its maximum in the background, each
    // new backend reading the catalogs, as many as the timing allows: a fixed cost that varies
    // between runs by more than the live rooms' share.
    shipped.run(
        db,
        db + "-" + rep + ".log",
        List.of("run-once", "--spring.datasource.hikari.minimum-idle=1"));
    return buffers(db) - before;
  }

  /**
   * The database's shared-buffer visits so far, once no backend is connected to it (an ended
   * backend's counters are flushed as it ends).
   */
  private long buffers(String db) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Connection c = server.dataSource("postgres").getConnection();
        Statement st = c.createStatement()) {
      while (true) {
        try (var rs =
            st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + db + "'")) {
          rs.next();
          if (rs.getLong(1) == 0) {
            break;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("backends on " + db + " did not end within 30 s");
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
      st.execute("SELECT pg_stat_clear_snapshot()");
      try (var rs =
          st.executeQuery(
              "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = '" + db + "'")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
