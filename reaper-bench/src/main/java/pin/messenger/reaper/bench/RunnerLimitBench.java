package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * Section {@code limit}: one runner's limit. The production jar runs as the worker runs ({@code
 * run}, default options, INFO logging), once as shipped and once with {@code
 * reaper.drain.enabled=true}, while {@link OrphanGenerator} makes rooms fall due at rising rates,
 * each held for a fixed number of polling intervals. Per step: close lateness (commit time − due
 * moment; rooms still open count with their age at the end) and the backlog's trough (due but not
 * closed, sampled every 0.5 s; its minimum over an interval is what the last cycle left). A step is
 * sustainable when the trough of its last interval exceeds that of its second (the first still
 * carries the previous rate) by at most half a batch or 5 % of the step's rooms. Each mode stops at
 * its first unsustainable step.
 *
 * <p>It starts its own embedded PostgreSQL with {@code track_commit_timestamp=on}: the reaper
 * writes the cycle's start as {@code ended_at}, so only the commit time says when a close became
 * visible. No maintained harness fits: the figures are a worker process's lateness and backlog
 * under an offered load held for minutes.
 */
final class RunnerLimitBench {
  private static final double SAMPLE_SECONDS = 0.5;

  /** One mode: its name, the worker's options, the offered rates in order. */
  record Mode(String name, List<String> workerOptions, List<Double> rates) {}

  private final boolean quick;
  private final Path workerJar;
  private final BenchReport report;
  private final Charts charts;
  private final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();

  RunnerLimitBench(boolean quick, Path workerJar, BenchReport report, Charts charts) {
    this.quick = quick;
    this.workerJar = workerJar;
    this.report = report;
    this.charts = charts;
  }

  void run() throws Exception {
    Duration interval = options.pollingInterval();
    int intervalsPerStep = quick ? 3 : 5;
    Duration step = interval.multipliedBy(intervalsPerStep);
    List<Mode> modes =
        List.of(
            new Mode(
                "defaults (drain off)",
                List.of(),
                quick ? List.of(2.0, 4.0, 8.0) : List.of(1.0, 2.0, 4.0, 8.0, 16.0)),
            new Mode(
                "drain mode (reaper.drain.enabled=true)",
                List.of("--reaper.drain.enabled=true"),
                quick
                    ? List.of(256.0, 512.0, 1024.0, 2048.0, 4096.0)
                    : List.of(64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0)));
    report.line(
        String.format(
            "%n## One runner's limit (production jar `run` as a child process, default options, INFO"
                + " logging; orphaned rooms at rising rates, %d s a step = %d polling intervals; 8/10"
                + " empty-room, 1/10 provision-timeout, 1/10 stale-live)",
            step.toSeconds(), intervalsPerStep));
    report.line(
        String.format(
            "reasoned ceiling at defaults: batch %d per phase per %d s cycle = %.2f rooms/s per phase;"
                + " with 8/10 of the rooms in empty-room: %.2f rooms/s; spread evenly over the 3 phases:"
                + " %.1f rooms/s",
            options.batchSize(),
            interval.toSeconds(),
            perPhaseCeiling(),
            perPhaseCeiling() / 0.8,
            3 * perPhaseCeiling()));
    List<Charts.Series> lines = new ArrayList<>();
    try (EmbeddedPostgres pg =
        BenchData.server(
            "reaper-limit",
            "shared_buffers",
            "256MB",
            "max_wal_size",
            "4GB",
            "track_commit_timestamp",
            "on")) {
      int n = 0;
      for (Mode mode : modes) {
        String db = "limit_" + n++;
        try (HikariDataSource admin = BenchData.pool(pg.getJdbcUrl("postgres", "postgres"), 1);
            Connection c = admin.getConnection();
            Statement st = c.createStatement()) {
          st.execute("CREATE DATABASE " + db);
        }
        lines.add(runMode(mode, pg.getJdbcUrl("postgres", db), step));
      }
    }
    charts.line(
        "lateness-vs-orphan-rate.png",
        "One runner: p99 close lateness vs orphaned rooms per second (default options)",
        "orphaned rooms falling due per second (offered)",
        "p99 close lateness, s",
        true,
        lines);
  }

  private double perPhaseCeiling() {
    return options.batchSize() / (double) options.pollingInterval().toSeconds();
  }

  private Charts.Series runMode(Mode mode, String url, Duration step) throws Exception {
    report.line(String.format("%n### %s", mode.name()));
    report.line(
        "| offered rooms/s | written rooms/s | rooms | closed | p50 s | p99 s | max s"
            + " | within 1 interval | backlog trough, 2nd → last interval | longest cycle ms"
            + " | cycle ms per 100 closed | sustainable |");
    report.line("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    Charts.Series line = Charts.Series.of(mode.name());
    try (HikariDataSource ds = BenchData.pool(url, 3)) {
      SchemaMigrations.migrate(ds);
      BenchData data = new BenchData(ds);
      data.liveRooms(1000);
      OrphanGenerator.createTable(data);
      data.exec("VACUUM ANALYZE");
      long live = data.count("status IN ('Provisioning', 'Active')");
      List<double[]> samples = new CopyOnWriteArrayList<>();
      ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
      List<LimitStep> steps = new ArrayList<>();
      try (WorkerProcess worker = WorkerProcess.start(workerJar, url, mode.workerOptions());
          OrphanGenerator generator = new OrphanGenerator(ds, options)) {
        var unused =
            sampler.scheduleAtFixedRate(
                () -> sample(data, live, samples),
                0,
                (long) (SAMPLE_SECONDS * 1000),
                TimeUnit.MILLISECONDS);
        generator.rate(0);
        generator.start();
        for (double rate : mode.rates()) {
          Instant from = Instant.now();
          long before = generator.written();
          generator.rate(rate);
          Thread.sleep(step.toMillis());
          Instant to = Instant.now();
          long written = generator.written() - before;
          double seconds = Duration.between(from, to).toMillis() / 1000.0;
          LimitStep s =
              LimitStep.measure(options, ds, worker, samples, rate, written / seconds, from, to);
          // The previous step's rooms are all decided by now (one whole step later): measured
          // again, its line is printed with final figures.
          if (!steps.isEmpty()) {
            line = print(again(ds, worker, samples, steps.get(steps.size() - 1)), line);
          }
          steps.add(s);
          if (!s.sustainable()) {
            break;
          }
          if (s.achieved() < 0.9 * rate) {
            report.line(
                String.format(
                    "the generator wrote only %,.0f of %,.0f rooms/s: the machine, not the runner, ends"
                        + " this series",
                    s.achieved(), rate));
            break;
          }
        }
        generator.rate(0);
        line = print(steps.get(steps.size() - 1), line);
        if (generator.failures() > 0) {
          report.line("generator statements failed: " + generator.failures());
        }
        report.line(
            String.format(
                "worker log: %d × \"cycle deadline reached\", %d × \"cycle failed\"",
                worker.linesContaining("cycle deadline reached"),
                worker.linesContaining("cycle failed")));
      } finally {
        sampler.shutdownNow();
      }
      summary(mode, steps);
    }
    return line;
  }

  private LimitStep again(
      HikariDataSource ds, WorkerProcess worker, List<double[]> samples, LimitStep s)
      throws Exception {
    return LimitStep.measure(
        options, ds, worker, samples, s.offered(), s.achieved(), s.from(), s.to());
  }

  private Charts.Series print(LimitStep s, Charts.Series line) {
    report.line(
        String.format(
            "| %,.0f | %,.1f | %,d | %,d | %.1f | %.1f | %.1f | %.1f %% | %,d → %,d | %,d | %s | %s |",
            s.offered(),
            s.achieved(),
            s.rooms(),
            s.closed(),
            s.p50(),
            s.p99(),
            s.max(),
            100 * s.withinInterval(),
            s.troughFirst(),
            s.troughLast(),
            s.maxCycleMs(),
            Double.isNaN(s.msPer100()) ? "—" : String.format("%.0f", s.msPer100()),
            s.sustainable() ? "yes" : "**no**"));
    return line.plus(s.offered(), s.p99());
  }

  private void summary(Mode mode, List<LimitStep> steps) {
    double best = 0;
    double firstNot = Double.NaN;
    for (LimitStep s : steps) {
      if (s.sustainable()) {
        best = Math.max(best, s.offered());
      } else if (Double.isNaN(firstNot)) {
        firstNot = s.offered();
      }
    }
    report.line(
        String.format(
            "sustainable: %,.0f rooms/s; first unsustainable step: %s",
            best,
            Double.isNaN(firstNot) ? "none reached" : String.format("%,.0f rooms/s", firstNot)));
  }

  /** The number of due rooms not closed, now (every generated room is due when written). */
  private static void sample(BenchData data, long live, List<double[]> samples) {
    try {
      long open = data.count("status IN ('Provisioning', 'Active')") - live;
      samples.add(new double[] {System.currentTimeMillis(), open});
    } catch (SQLException | RuntimeException e) {
      // A missed sample only thins the series.
    }
  }
}
