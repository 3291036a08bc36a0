package pin.messenger.reaper.bench;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import pin.messenger.reaper.bench.IdleCycleJmh.Score;

/**
 * Section {@code idle}: the idle cycle as the history grows (10k, 1M, 10M terminal rows), timed by
 * JMH ({@link IdleCycleJmh}) against the three raw claims, in a database of its own (1,000 live
 * rooms, nothing due) that no other section churns. At each size the same cycle is timed in the
 * same JMH run on a second database that keeps 10k terminal rows: the ratio of the two compares
 * neighbouring minutes of a shared machine, not a size with one measured long before.
 */
final class IdleCycleBench {
  private static final int ITERATIONS = 8;

  private final DataSource idle;
  private final DataSource reference;
  private final BenchReport report;
  private final Charts charts;

  IdleCycleBench(DataSource idle, DataSource reference, BenchReport report, Charts charts) {
    // Plain field assignments: `duplicates` pairs them with other constructors of the same shape.
    this.idle = idle;
    this.reference = reference;
    this.report = report;
    this.charts = charts;
  }

  void run(List<Long> sizes) throws Exception {
    report.line(
        "\n## Idle cycle vs history (1,000 live rooms, nothing due, a database of its own; JMH, "
            + ITERATIONS
            + " iterations of 1 s after as many of warm-up: ms per call, mean ± 99.9 % error)");
    report.line(
        "| terminal rows | reaper cycle (lock + 3 phases) ms | 3 raw claims ms | ratio to raw"
            + " | same cycle, 10k database, ms | cycle vs 10k database |");
    report.line("|---:|---:|---:|---:|---:|---:|");
    String url = BenchData.url(idle);
    String ref = BenchData.url(reference);
    BenchData data = new BenchData(idle);
    Charts.Series cycleLine = Charts.Series.of("reaper cycle (lock + 3 phases)");
    Charts.Series rawLine = Charts.Series.of("3 raw claims");
    Charts.Series refLine = Charts.Series.of("same cycle, 10k database");
    for (long history : sizes) {
      data.history(history);
      Map<String, Score> cycles = time("reaperCycle", List.of(ref, url));
      Score cycle = Objects.requireNonNull(cycles.get(url));
      Score small = Objects.requireNonNull(cycles.get(ref));
      Score raw = Objects.requireNonNull(time("threeRawClaims", List.of(url)).get(url));
      cycleLine = cycleLine.plus(history, cycle.ms());
      rawLine = rawLine.plus(history, raw.ms());
      refLine = refLine.plus(history, small.ms());
      report.line(
          String.format(
              "| %,d | %.2f ± %.2f | %.2f ± %.2f | %.1f× | %.2f ± %.2f | %.2f× |",
              history,
              cycle.ms(),
              cycle.error(),
              raw.ms(),
              raw.error(),
              cycle.ms() / raw.ms(),
              small.ms(),
              small.error(),
              cycle.ms() / small.ms()));
    }
    charts.line(
        "idle-cycle-vs-history.png",
        "Idle cycle vs history (1,000 live rooms, nothing due; JMH means)",
        "terminal rows in history",
        "ms",
        true,
        List.of(cycleLine, rawLine, refLine));
  }

  private static Map<String, Score> time(String benchmark, List<String> urls) throws Exception {
    return Objects.requireNonNull(
        IdleCycleJmh.run(List.of(benchmark), urls, ITERATIONS, IdleCycleJmh.forks())
            .get(benchmark));
  }
}
