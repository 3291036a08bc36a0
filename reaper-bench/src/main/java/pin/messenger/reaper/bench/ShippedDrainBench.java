package pin.messenger.reaper.bench;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * Section {@code shipped-drain}: the drain as it ships, measured from outside. The worker is the
 * production jar started by {@code bin/reaper} (its JVM flags and class-data archive) as a child
 * process, logging at its default level (INFO, a {@code conference reaped} line per room) into a
 * pipe this process drains, against a database of the bench's server. Two shapes: a fresh {@code
 * run-once} (a new JVM per drain) and a warm {@code run} worker (started, warmed by a first
 * backlog, then timed on backlogs committed while it runs). Each is compared with the set-based
 * floor ({@link Floors#SET_BASED_BATCH}) on an identical copy of the database ({@code CREATE
 * DATABASE … TEMPLATE}), in the same repetition, alternating which goes first.
 *
 * <p>A drain's time is taken from the lines as they arrive here: from the {@code cycle started}
 * line of the cycle that drains (or the backlog's commit, if later) to its {@code cycle completed}
 * line, which the worker writes after every {@code conference reaped} line of the cycle; the count
 * of those lines is checked. Process start-up is not in it (docs/benchmarks.md, start-up). No
 * maintained harness fits: the worker is measured end to end as a process, from its log lines.
 */
final class ShippedDrainBench {
  private static final int BACKLOG = 20_000;
  private static final String TEMPLATE = "shipped_template";

  private final boolean quick;
  private final BenchServer server;
  private final BenchReport report;
  private final Charts charts;

  ShippedDrainBench(boolean quick, BenchServer server, BenchReport report, Charts charts) {
    this.quick = quick;
    this.server = server;
    this.report = report;
    this.charts = charts;
  }

  void run() throws Exception {
    int reps = quick ? 1 : 3;
    List<Integer> batches = quick ? List.of(250, 1000) : List.of(100, 250, 500, 1000, 2000);
    ShippedRun shipped = ShippedRun.prepare("shipped-drain", server);
    template();
    report.line(
        String.format(
            "%n## Drain as shipped (production jar via bin/reaper, INFO logging into a pipe;"
                + " %,d due empty rooms, 3 roster rows each, every 10th recorded, over 100k history;"
                + " rows/s from the worker's lines as they arrive, median of %d alternated runs)",
            BACKLOG, reps));
    report.line(
        "| batch | drain pause | fresh run-once | warm run | set-based floor (same run) |"
            + " fresh / floor | warm / floor | fresh, cycle's own durationMs |");
    report.line("|---:|---|---:|---:|---:|---:|---:|---:|");
    Charts.Series fresh = Charts.Series.of("reaper, fresh run-once");
    Charts.Series warm = Charts.Series.of("reaper, warm run");
    Charts.Series floor = Charts.Series.of("set-based floor");
    // The default drain pause first (50 ms between batches), as an operator's drain runs.
    row(shipped, 1000, null, reps);
    for (int batch : batches) {
      double[] r = row(shipped, batch, "0s", reps);
      fresh = fresh.plus(batch, r[0]);
      warm = warm.plus(batch, r[1]);
      floor = floor.plus(batch, r[2]);
    }
    charts.line(
        "drain-vs-batch-size.png",
        "Drain rows/s vs batch size (shipped jar, INFO logs, drain pause 0; medians)",
        "batch size",
        "rows/s",
        true,
        List.of(fresh, warm, floor));
  }

  /** One table row: fresh, warm and floor rates; {@code pause} null is the default pause. */
  private double[] row(ShippedRun shipped, int batch, @Nullable String pause, int reps)
      throws Exception {
    List<String> options = new ArrayList<>();
    options.add("--reaper.drain.enabled=true");
    options.add("--reaper.batch-size=" + batch);
    if (pause != null) {
      options.add("--reaper.drain.pause=" + pause);
    }
    List<Double> freshRates = new ArrayList<>();
    List<Double> freshOwn = new ArrayList<>();
    List<Double> warmRates = new ArrayList<>();
    List<Double> floorRates = new ArrayList<>();
    try (WarmWorker worker = new WarmWorker(shipped, TEMPLATE, BACKLOG, batch, options)) {
      for (int rep = 0; rep < reps; rep++) {
        server.copy("shipped_fresh", TEMPLATE);
        server.copy("shipped_floor", TEMPLATE);
        double[] f;
        double fl;
        // Alternate which goes first, so neither always runs on the fresher machine.
        if (rep % 2 == 0) {
          f = fresh(shipped, options, batch, rep);
          fl = floor(batch);
        } else {
          fl = floor(batch);
          f = fresh(shipped, options, batch, rep);
        }
        freshRates.add(f[0]);
        freshOwn.add(f[1]);
        floorRates.add(fl);
        warmRates.add(worker.drain());
      }
    }
    double fr = BenchReport.median(freshRates);
    double wr = BenchReport.median(warmRates);
    double fl = BenchReport.median(floorRates);
    report.line(
        String.format(
            "| %d | %s | %,.0f | %,.0f | %,.0f | %.2f | %.2f | %,.0f |",
            batch,
            pause == null ? "default (50 ms)" : pause,
            fr,
            wr,
            fl,
            fr / fl,
            wr / fl,
            BenchReport.median(freshOwn)));
    return new double[] {fr, wr, fl};
  }

  /**
   * One {@code run-once} on a fresh copy; returns {rows/s from the lines, rows/s from durationMs}.
   */
  private double[] fresh(ShippedRun shipped, List<String> options, int batch, int rep)
      throws Exception {
    List<String> args = new ArrayList<>(List.of("run-once"));
    args.addAll(options);
    Process p = shipped.start("shipped_fresh", "fresh-" + batch + "-" + rep, args);
    DrainLines lines = new DrainLines();
    ChildOutput out = ChildOutput.follow(p, "shipped-drain-stdout", lines);
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("run-once did not end within 10 minutes");
    }
    out.join();
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          "run-once exited with " + p.exitValue() + "; stderr in " + shipped.logs());
    }
    DrainLines.Cycle c = lines.reaping(0);
    if (c == null || c.reaped() != BACKLOG || lines.reapedLines() != BACKLOG) {
      throw new IllegalStateException(
          "run-once drained "
              + (c == null ? 0 : c.reaped())
              + " rooms with "
              + lines.reapedLines()
              + " 'conference reaped' lines, expected "
              + BACKLOG);
    }
    return new double[] {
      BACKLOG / ((c.completed() - c.started()) / 1e9), BACKLOG / (c.durationMs() / 1e3)
    };
  }

  private double floor(int batch) throws SQLException {
    return new Floors(server.dataSource("shipped_floor")).setBasedRate(batch, BACKLOG);
  }

  /**
   * The template: schema, 1,000 live rooms, 100k history and the due backlog, then frozen (no
   * connection stays open, so it can be copied).
   */
  private void template() throws SQLException {
    server.recreate(TEMPLATE);
    DataSource ds = server.dataSource(TEMPLATE);
    SchemaMigrations.migrate(ds);
    BenchData data = new BenchData(ds);
    data.liveRooms(1000);
    data.history(100_000);
    data.backlog(BACKLOG);
    data.exec("CHECKPOINT");
  }
}
