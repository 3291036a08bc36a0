package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import pin.messenger.reaper.bench.SchedulePlan.Event;
import pin.messenger.reaper.bench.SchedulePlan.Room;

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
 * No maintained harness fits: the figures are two worker processes' lateness in closing rooms and
 * their database work per hour.
 */
final class ScheduleBench {
  private static final List<String> MODES = List.of("fixed", "next-due");
  private static final Duration LEAD = SchedulePlan.PROVISION.plusSeconds(10);
  private static final Duration TAIL = Duration.ofSeconds(40);

  private final Duration window;
  private final Duration idle;
  private final Path workerJar;
  private final BenchReport report;
  private final Charts charts;

  ScheduleBench(
      boolean quick, List<String> args, Path workerJar, BenchReport report, Charts charts) {
    long seconds = BenchArgs.number(args, "--schedule-seconds", quick ? 60 : 300, 1);
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
      List<Room> plan = SchedulePlan.plan(window, Instant.EPOCH);
      List<HikariDataSource> pools = new ArrayList<>();
      List<WorkerProcess> workers = new ArrayList<>();
      try {
        for (String mode : MODES) {
          HikariDataSource ds = BenchData.pool(pg.getJdbcUrl("generator", db(mode)), 2);
          pools.add(ds);
          ScheduleDb.prepare(ds);
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
        List<long[]> idleWork = ScheduleDb.work(pools);
        Thread.sleep(idle.toMillis());
        List<long[]> idleEnd = ScheduleDb.work(pools);
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
          ScheduleDb.occupiedRooms(ds, plan);
          ScheduleDb.staleDates(ds, plan, shift);
        }
        List<Event> events = SchedulePlan.events(plan, shift);
        int first = 0;
        while (first < events.size() && events.get(first).at().isBefore(start)) {
          first++;
        }
        for (Event e : events.subList(0, first)) {
          sleepUntil(e.at());
          ScheduleDb.writeAll(pools, e);
        }
        sleepUntil(start);
        List<long[]> marks = ScheduleDb.work(pools);
        for (Event e : events.subList(first, events.size())) {
          sleepUntil(e.at());
          ScheduleDb.writeAll(pools, e);
        }
        Instant end = start.plus(window.multipliedBy(SchedulePlan.RATES.size()));
        sleepUntil(end);
        List<long[]> endWork = ScheduleDb.work(pools);
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
      for (int k = 0; k < SchedulePlan.RATES.size(); k++) {
        Instant from = start.plus(window.multipliedBy(k));
        Instant to = from.plus(window);
        long cycles =
            workers.get(m).cycles().stream()
                .filter(c -> c.at().isAfter(from) && c.at().isBefore(to))
                .count();
        double perMinute = cycles / (window.toMillis() / 60_000.0);
        for (String phase : List.of("empty-room", "provision-timeout", "stale-live")) {
          double[] f = ScheduleDb.lateness(pools.get(m), phase, from, to);
          report.line(
              String.format(
                  "| %s | %s | %s | %d | %d | %.2f | %.2f | %.2f | %.1f |",
                  MODES.get(m),
                  SchedulePlan.RATES.get(k),
                  phase,
                  (long) f[0],
                  (long) f[1],
                  f[2],
                  f[3],
                  f[4],
                  perMinute));
        }
        cdfs.add(
            ScheduleDb.cdf(
                pools.get(m), MODES.get(m) + " @ " + SchedulePlan.RATES.get(k) + "/s", from, to));
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
          start.plus(window.multipliedBy(SchedulePlan.RATES.size())),
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

  /** The correctness targets, as pass/fail lines. */
  private void checks(String mode, HikariDataSource ds, WorkerProcess worker) throws Exception {
    BenchData data = new BenchData(ds);
    long early =
        data.scalar(
            "SELECT count(*) FROM bench_schedule b JOIN messenger.conference_sessions s USING (id)"
                + " WHERE s.status NOT IN ('Provisioning', 'Active') AND pg_xact_commit_timestamp(s.xmin) < b.due_at");
    long rejoined =
        data.scalar(
            "SELECT count(*) FROM bench_schedule b JOIN messenger.conference_sessions s USING (id)"
                + " WHERE b.rejoined AND s.status NOT IN ('Provisioning', 'Active')");
    long closed = data.count("status NOT IN ('Provisioning', 'Active')");
    long lines = worker.linesContaining("\"conference reaped\"");
    long unplanned =
        data.scalar(
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
}
