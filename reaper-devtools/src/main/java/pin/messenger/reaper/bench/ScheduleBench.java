package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Section {@code schedule}: {@code reaper.schedule=fixed} and {@code next-due} side by side. Two
 * production-jar workers at the shipped defaults run at the same time, each on a database of its
 * own on one embedded server ({@code track_commit_timestamp}, {@code pg_stat_statements}): the same
 * machine load and the same event plan reach both, which alternating runs could not promise on a
 * shared machine, and the run takes half the time. First an idle window (1,000 occupied live rooms
 * and the plan's rooms, all occupied or not yet due), then one window per rate (0.1, 1, 10 rooms
 * falling due per second; {@code --schedule-seconds N}, default 300, {@code --quick} 60). The
 * messenger is simulated: 7 in 10 rooms are occupied and empty at a random instant (count → 0,
 * last_activity_at = now) one grace before their due instant, and 1 in 5 of those gets a
 * participant back within the grace; 3 in 20 are created Provisioning and never admitted; 3 in 20
 * are occupied rooms whose last heartbeat is dated so that the stale-live window ends inside the
 * run. The generator writes as its own role, so pg_stat_statements counts the worker's statements.
 */
final class ScheduleBench {
  private static final List<Double> RATES = List.of(0.1, 1.0, 10.0);
  private static final List<String> MODES = List.of("fixed", "next-due");
  private static final Duration GRACE = Duration.ofSeconds(90);
  private static final Duration PROVISION = Duration.ofMinutes(2);
  private static final Duration LEAD = PROVISION.plusSeconds(10);
  private static final Duration TAIL = Duration.ofSeconds(40);

  /** One planned room: its phase, its due instant, and when (if ever) a participant rejoins. */
  record Room(UUID id, String phase, Instant due, Instant rejoin) {}

  /** One write of the generator, at {@code at}. */
  record Event(Instant at, Room room, String what) {}

  private final Duration window;
  private final Duration idle;
  private final Path workerJar;
  private final BenchReport report;
  private final Charts charts;

  ScheduleBench(
      boolean quick, List<String> args, Path workerJar, BenchReport report, Charts charts) {
    int at = args.indexOf("--schedule-seconds");
    long seconds = at >= 0 ? Long.parseLong(args.get(at + 1)) : quick ? 60 : 300;
    this.window = Duration.ofSeconds(seconds);
    this.idle = Duration.ofSeconds(Math.max(60, seconds));
    this.workerJar = workerJar;
    this.report = report;
    this.charts = charts;
  }

  void run() throws Exception {
    report.line(
        String.format(
            "%n## Next-due schedule (production jar `run` × 2 at the same time, defaults, one database each;"
                + " idle %d s, then %d s per rate)",
            idle.toSeconds(), window.toSeconds()));
    try (EmbeddedPostgres pg =
        BenchData.server(
            "reaper-schedule",
            "track_commit_timestamp",
            "on",
            "shared_preload_libraries",
            "pg_stat_statements")) {
      try (HikariDataSource admin = BenchData.pool(pg.getJdbcUrl("postgres", "postgres"), 1)) {
        BenchData a = new BenchData(admin);
        a.exec("CREATE ROLE generator LOGIN SUPERUSER");
        for (String mode : MODES) {
          a.exec("CREATE DATABASE " + db(mode));
        }
      }
      List<Room> plan = plan(Instant.EPOCH);
      List<HikariDataSource> pools = new ArrayList<>();
      List<WorkerProcess> workers = new ArrayList<>();
      try {
        for (String mode : MODES) {
          HikariDataSource ds = BenchData.pool(pg.getJdbcUrl("generator", db(mode)), 2);
          pools.add(ds);
          prepare(ds);
        }
        for (String mode : MODES) {
          workers.add(
              WorkerProcess.start(
                  workerJar,
                  pg.getJdbcUrl("postgres", db(mode)),
                  List.of("--reaper.schedule=" + mode)));
        }
        // The idle window: 1,000 occupied live rooms and nothing else.
        Instant t0 = Instant.now();
        List<long[]> idleWork = work(pools);
        Thread.sleep(idle.toMillis());
        List<long[]> idleEnd = work(pools);
        report.line("| mode | idle cycles/min | idle statements/h | idle shared buffers/h |");
        report.line("|---|---:|---:|---:|");
        for (int m = 0; m < MODES.size(); m++) {
          printWork(
              MODES.get(m), workers.get(m), t0, t0.plus(idle), idleWork.get(m), idleEnd.get(m));
        }
        // Then the plan's occupied rooms, their instants relative to now: the first event (a room
        // created Provisioning one provision window before it falls due) is LEAD − PROVISION away.
        Instant start = Instant.now().plus(LEAD);
        Duration shift = Duration.between(Instant.EPOCH, start);
        for (HikariDataSource ds : pools) {
          occupiedRooms(ds, plan);
          staleDates(ds, plan, shift);
        }
        List<Event> events = events(plan, shift);
        int first = 0;
        while (first < events.size() && events.get(first).at().isBefore(start)) {
          first++;
        }
        for (Event e : events.subList(0, first)) {
          sleepUntil(e.at());
          writeAll(pools, e);
        }
        sleepUntil(start);
        List<long[]> marks = work(pools);
        for (Event e : events.subList(first, events.size())) {
          sleepUntil(e.at());
          writeAll(pools, e);
        }
        Instant end = start.plus(window.multipliedBy(RATES.size()));
        sleepUntil(end);
        List<long[]> endWork = work(pools);
        sleepUntil(end.plus(TAIL));
        report(pools, workers, start, marks, endWork);
      } finally {
        for (WorkerProcess w : workers) {
          w.close();
        }
        for (HikariDataSource ds : pools) {
          ds.close();
        }
      }
    }
  }

  private static String db(String mode) {
    return "schedule_" + mode.replace('-', '_');
  }

  /** The rooms falling due in each rate's window, from {@code start}, with a fixed seed. */
  List<Room> plan(Instant start) {
    Random random = new Random(22);
    List<Room> rooms = new ArrayList<>();
    for (int k = 0; k < RATES.size(); k++) {
      Instant from = start.plus(window.multipliedBy(k));
      long n = Math.round(RATES.get(k) * window.toSeconds());
      for (long i = 0; i < n; i++) {
        Instant due = from.plusMillis((long) (random.nextDouble() * window.toMillis()));
        int kind = random.nextInt(20);
        String phase = kind < 14 ? "empty-room" : kind < 17 ? "provision-timeout" : "stale-live";
        Instant rejoin =
            phase.equals("empty-room") && random.nextInt(5) == 0
                ? due.minus(GRACE).plusMillis(10_000 + random.nextInt(50_000))
                : Instant.MAX;
        rooms.add(new Room(UUID.randomUUID(), phase, due, rejoin));
      }
    }
    return rooms;
  }

  /**
   * The generator's writes for {@code plan}, moved by {@code shift}, in time order: an empty room
   * empties one grace before it is due, a Provisioning room is created one provision timeout
   * before; stale-live rooms need no write (their heartbeat is dated in advance).
   */
  static List<Event> events(List<Room> plan, Duration shift) {
    List<Event> events = new ArrayList<>();
    for (Room r : plan) {
      Room room =
          new Room(
              r.id(),
              r.phase(),
              r.due().plus(shift),
              r.rejoin().equals(Instant.MAX) ? Instant.MAX : r.rejoin().plus(shift));
      switch (room.phase()) {
        case "empty-room" -> events.add(new Event(room.due().minus(GRACE), room, "empty"));
        case "provision-timeout" ->
            events.add(new Event(room.due().minus(PROVISION), room, "create"));
        default -> {}
      }
      if (!room.rejoin().equals(Instant.MAX)) {
        events.add(new Event(room.rejoin(), room, "rejoin"));
      }
    }
    events.sort(Comparator.comparing(Event::at));
    return events;
  }

  /** The schema, 1,000 occupied live rooms, the table of due instants and pg_stat_statements. */
  private static void prepare(HikariDataSource ds) throws SQLException {
    pin.messenger.reaper.schema.SchemaMigrations.migrate(ds);
    BenchData data = new BenchData(ds);
    data.liveRooms(1000);
    data.exec("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    data.exec(
        "CREATE TABLE bench_schedule (id uuid PRIMARY KEY, phase text NOT NULL, due_at timestamptz,"
            + " rejoined boolean NOT NULL DEFAULT false)");
    data.exec("VACUUM ANALYZE");
  }

  /**
   * The plan's occupied rooms, heart-beating now (stale-live ones are then dated by {@link
   * #staleDates} so that their window ends at their due instant).
   */
  private static void occupiedRooms(HikariDataSource ds, List<Room> plan) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                INSERT INTO messenger.conference_sessions
                  (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at,
                   started_at, last_activity_at, updated_at, active_participant_count, peak_participant_count)
                VALUES (?, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video', 'Active',
                        gen_random_uuid(), now() - interval '5 minutes', now() - interval '5 minutes',
                        now(), now(), 2, 2)
                """)) {
      for (Room r : plan) {
        if (r.phase().equals("provision-timeout")) {
          continue;
        }
        ps.setObject(1, r.id());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static void writeAll(List<HikariDataSource> pools, Event e) throws SQLException {
    for (HikariDataSource ds : pools) {
      write(ds, e);
    }
  }

  private static void write(HikariDataSource ds, Event e) throws SQLException {
    String sql =
        switch (e.what()) {
          case "empty" ->
              """
              WITH u AS (UPDATE messenger.conference_sessions SET active_participant_count = 0,
                           last_activity_at = now(), updated_at = now() WHERE id = ? RETURNING id)
              INSERT INTO bench_schedule (id, phase, due_at) SELECT id, 'empty-room', now() + interval '90 seconds' FROM u
              """;
          case "rejoin" ->
              """
              WITH u AS (UPDATE messenger.conference_sessions SET active_participant_count = 1,
                           last_activity_at = now(), updated_at = now()
                          WHERE id = ? AND status = 'Active' RETURNING id)
              UPDATE bench_schedule SET rejoined = true, due_at = NULL WHERE id IN (SELECT id FROM u)
              """;
          default ->
              """
              WITH i AS (INSERT INTO messenger.conference_sessions
                           (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at,
                            last_activity_at, updated_at)
                         VALUES (?, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio',
                                 'Provisioning', gen_random_uuid(), now(), now(), now()) RETURNING id)
              INSERT INTO bench_schedule (id, phase, due_at) SELECT id, 'provision-timeout', now() + interval '2 minutes' FROM i
              """;
        };
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, e.room().id());
      ps.executeUpdate();
    }
  }

  /** Stale-live rooms: their last heartbeat dated one stale window before their due instant. */
  private static void staleDates(HikariDataSource ds, List<Room> plan, Duration shift)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                WITH u AS (UPDATE messenger.conference_sessions SET last_activity_at = ?::timestamptz - interval '4 hours'
                            WHERE id = ? RETURNING id)
                INSERT INTO bench_schedule (id, phase, due_at) SELECT id, 'stale-live', ?::timestamptz FROM u
                """)) {
      for (Room r : plan) {
        if (r.phase().equals("stale-live")) {
          java.sql.Timestamp due = java.sql.Timestamp.from(r.due().plus(shift));
          ps.setTimestamp(1, due);
          ps.setObject(2, r.id());
          ps.setTimestamp(3, due);
          ps.addBatch();
        }
      }
      ps.executeBatch();
    }
  }

  /** The worker's statements and shared buffers so far, per database ({@code postgres} role). */
  private static List<long[]> work(List<HikariDataSource> pools) throws SQLException {
    List<long[]> out = new ArrayList<>();
    for (HikariDataSource ds : pools) {
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT coalesce(sum(calls), 0), coalesce(sum(shared_blks_hit + shared_blks_read), 0)"
                      + " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database"
                      + " WHERE datname = current_database()) AND userid = 'postgres'::regrole")) {
        rs.next();
        out.add(new long[] {rs.getLong(1), rs.getLong(2)});
      }
    }
    return out;
  }

  private void printWork(
      String mode, WorkerProcess worker, Instant from, Instant to, long[] a, long[] b)
      throws Exception {
    double hours = Duration.between(from, to).toMillis() / 3_600_000.0;
    long cycles =
        worker.cycles().stream().filter(c -> c.at().isAfter(from) && c.at().isBefore(to)).count();
    report.line(
        String.format(
            "| %s | %.1f | %,.0f | %,.0f |",
            mode, cycles / (hours * 60), (b[0] - a[0]) / hours, (b[1] - a[1]) / hours));
  }

  private static void sleepUntil(Instant at) throws InterruptedException {
    long ms = Duration.between(Instant.now(), at).toMillis();
    if (ms > 0) {
      Thread.sleep(ms);
    }
  }

  private void report(
      List<HikariDataSource> pools,
      List<WorkerProcess> workers,
      Instant start,
      List<long[]> marks,
      List<long[]> end)
      throws Exception {
    report.line("");
    report.line("| mode | rooms/s | phase | due | closed | p50 s | p99 s | max s | cycles/min |");
    report.line("|---|---:|---|---:|---:|---:|---:|---:|---:|");
    List<Charts.Series> cdfs = new ArrayList<>();
    for (int m = 0; m < MODES.size(); m++) {
      for (int k = 0; k < RATES.size(); k++) {
        Instant from = start.plus(window.multipliedBy(k));
        Instant to = from.plus(window);
        long cycles =
            workers.get(m).cycles().stream()
                .filter(c -> c.at().isAfter(from) && c.at().isBefore(to))
                .count();
        double perMinute = cycles / (window.toMillis() / 60_000.0);
        for (String phase : List.of("empty-room", "provision-timeout", "stale-live")) {
          double[] f = lateness(pools.get(m), phase, from, to);
          report.line(
              String.format(
                  "| %s | %s | %s | %d | %d | %.2f | %.2f | %.2f | %.1f |",
                  MODES.get(m),
                  RATES.get(k),
                  phase,
                  (long) f[0],
                  (long) f[1],
                  f[2],
                  f[3],
                  f[4],
                  perMinute));
        }
        cdfs.add(cdf(pools.get(m), MODES.get(m) + " @ " + RATES.get(k) + "/s", from, to));
      }
    }
    report.line("");
    report.line(
        "| mode | cycles/min (all rates) | statements/h (all rates) | shared buffers/h (all rates) |");
    report.line("|---|---:|---:|---:|");
    for (int m = 0; m < MODES.size(); m++) {
      printWork(
          MODES.get(m),
          workers.get(m),
          start,
          start.plus(window.multipliedBy(RATES.size())),
          marks.get(m),
          end.get(m));
    }
    report.line("");
    for (int m = 0; m < MODES.size(); m++) {
      checks(MODES.get(m), pools.get(m), workers.get(m));
    }
    charts.line(
        "schedule-lateness.png",
        "Close lateness (commit − due), fixed vs next-due, all phases",
        "lateness, s",
        "share of closed rooms ≤ x",
        false,
        cdfs);
  }

  private static double[] lateness(HikariDataSource ds, String phase, Instant from, Instant to)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                WITH r AS (
                  SELECT s.status NOT IN ('Provisioning', 'Active') AS closed,
                         extract(epoch FROM pg_xact_commit_timestamp(s.xmin) - b.due_at) AS late
                    FROM bench_schedule b JOIN messenger.conference_sessions s USING (id)
                   WHERE b.phase = ? AND b.due_at >= ? AND b.due_at < ?)
                SELECT count(*), count(*) FILTER (WHERE closed),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY late) FILTER (WHERE closed),
                       percentile_cont(0.99) WITHIN GROUP (ORDER BY late) FILTER (WHERE closed),
                       max(late) FILTER (WHERE closed)
                  FROM r
                """)) {
      ps.setString(1, phase);
      ps.setObject(2, java.sql.Timestamp.from(from));
      ps.setObject(3, java.sql.Timestamp.from(to));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new double[] {
          rs.getLong(1), rs.getLong(2), rs.getDouble(3), rs.getDouble(4), rs.getDouble(5)
        };
      }
    }
  }

  private static Charts.Series cdf(HikariDataSource ds, String name, Instant from, Instant to)
      throws SQLException {
    Charts.Series s = Charts.Series.of(name);
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                SELECT q, percentile_cont(q) WITHIN GROUP (ORDER BY
                         extract(epoch FROM pg_xact_commit_timestamp(s.xmin) - b.due_at))
                  FROM bench_schedule b JOIN messenger.conference_sessions s USING (id),
                       generate_series(0, 1, 0.02) AS q
                 WHERE b.due_at >= ? AND b.due_at < ? AND s.status NOT IN ('Provisioning', 'Active')
                 GROUP BY q ORDER BY q
                """)) {
      ps.setObject(1, java.sql.Timestamp.from(from));
      ps.setObject(2, java.sql.Timestamp.from(to));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          s = s.plus(rs.getDouble(2), rs.getDouble(1));
        }
      }
    }
    return s;
  }

  /** The correctness targets, as pass/fail lines. */
  private void checks(String mode, HikariDataSource ds, WorkerProcess worker) throws Exception {
    BenchData data = new BenchData(ds);
    long early =
        scalar(
            ds,
            "SELECT count(*) FROM bench_schedule b JOIN messenger.conference_sessions s USING (id)"
                + " WHERE s.status NOT IN ('Provisioning', 'Active') AND pg_xact_commit_timestamp(s.xmin) < b.due_at");
    long rejoined =
        scalar(
            ds,
            "SELECT count(*) FROM bench_schedule b JOIN messenger.conference_sessions s USING (id)"
                + " WHERE b.rejoined AND s.status NOT IN ('Provisioning', 'Active')");
    long closed = data.count("status NOT IN ('Provisioning', 'Active')");
    long lines = worker.linesContaining("\"conference reaped\"");
    long unplanned =
        scalar(
            ds,
            "SELECT count(*) FROM messenger.conference_sessions s WHERE s.status NOT IN"
                + " ('Provisioning', 'Active') AND s.id NOT IN (SELECT id FROM bench_schedule WHERE due_at IS NOT NULL)");
    report.line(
        String.format(
            "%s: %s no room closed before its window (%d early)",
            mode, early == 0 ? "PASS" : "FAIL", early));
    report.line(
        String.format(
            "%s: %s none closed twice (%d rooms closed, %d 'conference reaped' lines)",
            mode, lines == closed ? "PASS" : "FAIL", closed, lines));
    report.line(
        String.format(
            "%s: %s none closed that got a participant back (%d), nor any room never due (%d)",
            mode, rejoined == 0 && unplanned == 0 ? "PASS" : "FAIL", rejoined, unplanned));
  }

  private static long scalar(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
