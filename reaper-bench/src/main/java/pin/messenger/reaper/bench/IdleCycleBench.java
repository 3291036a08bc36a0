package pin.messenger.reaper.bench;

import java.util.List;
import javax.sql.DataSource;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;

/**
 * Section 1: the idle cycle as the history grows. It has two databases of its own on the bench's
 * server: {@code idle}, whose history grows (10k, 1M, 10M terminal rows), and {@code reference},
 * which keeps 10k and is timed in turn with it. Neither sees the backlog sections' churn.
 */
final class IdleCycleBench {
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

  private void header() {
    report.line(
        "\n## 1. Idle cycle vs history (1,000 live rooms, nothing due, in a database of its own; median of 41 cycles,"
            + " each timed in turn with the same cycle on a second database of the same server that keeps 10k terminal"
            + " rows)");
    headerRow();
  }

  private void headerRow() {
    report.line(
        "| terminal rows | reaper cycle (lock + 3 phases) ms | 3 raw claims ms | ratio to raw"
            + " | same cycle, 10k database, ms | cycle vs 10k database (median of paired ratios) |");
    report.line("|---:|---:|---:|---:|---:|---:|");
  }

  /**
   * 1. Idle cycle (nothing due, 1,000 live rooms) as the history grows, against the three raw
   * claims.
   */
  void run(List<Long> sizes) throws Exception {
    header();
    BenchData idleData = new BenchData(idle);
    Floors idleFloors = new Floors(idle);
    ConferenceRoomReaperOptions o = ConferenceRoomReaperOptions.defaults();
    ConferenceRoomReaper reaper = BenchReport.reaper(idle, o);
    ConferenceRoomReaper referenceReaper = BenchReport.reaper(reference, o);
    // In turn: the same cycle on the 10k database, the cycle, the three raw claims.
    List<InTurn.Step> steps =
        List.of(
            InTurn.idleCycle(referenceReaper, "the 10k database"),
            InTurn.idleCycle(reaper, "the idle database"),
            now ->
                idleFloors.rawClaims(
                    Phase.EMPTY_ROOM.cutoff(now, o),
                    Phase.PROVISION_TIMEOUT.cutoff(now, o),
                    Phase.STALE_LIVE.cutoff(now, o)));
    // Warm the JIT and the caches before the first measured size, so the 10k case is not paying for
    // start-up.
    InTurn.time(0, 300, steps);
    Charts.Series cycleLine = Charts.Series.of("reaper cycle (lock + 3 phases)");
    Charts.Series rawLine = Charts.Series.of("3 raw claims");
    Charts.Series refLine = Charts.Series.of("same cycle, 10k database");
    for (long history : sizes) {
      idleData.history(history);
      List<double[]> times = InTurn.time(41, 5, steps);
      List<Double> ref = InTurn.of(times, 0);
      List<Double> cycle = InTurn.of(times, 1);
      List<Double> raw = InTurn.of(times, 2);
      List<Double> paired = BenchReport.pairedRatios(cycle, ref);
      double c = BenchReport.median(cycle);
      double w = BenchReport.median(raw);
      cycleLine = cycleLine.plus(history, c);
      rawLine = rawLine.plus(history, w);
      refLine = refLine.plus(history, BenchReport.median(ref));
      report.line(
          String.format(
              "| %,d | %.2f | %.2f | %.1f× | %.2f | %.2f× |",
              history, c, w, c / w, BenchReport.median(ref), BenchReport.median(paired)));
    }
    charts.line(
        "idle-cycle-vs-history.png",
        "Idle cycle vs history (1,000 live rooms, nothing due; medians)",
        "terminal rows in history",
        "ms",
        true,
        List.of(cycleLine, rawLine, refLine));
  }
}
