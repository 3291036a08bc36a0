package pin.messenger.reaper.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Phase;

/**
 * Section {@code backlog}: a due backlog on the bench's main database (1M history), drained by the
 * reaper against the set-based floor and a row-by-row loop, one default cycle, and drain mode at
 * default options. The reaper runs in this JVM with the bench's logging (root at WARN, so no
 * per-room line) and without observers: these sections measure the core and the store, and say so
 * in their heading; {@link ShippedDrainBench} measures the worker as it ships. Not JMH: within each
 * repetition the reaper, the floor and the loop drain the same freshly generated backlog in turn,
 * so their ratios compare the same minutes of a shared machine, where JMH runs all iterations of
 * one benchmark before the next.
 */
final class BacklogBench {
  private final boolean quick;
  private final DataSource dataSource;
  private final BenchData data;
  private final Floors floors;
  private final BenchReport report;
  private boolean liveRooms;

  BacklogBench(boolean quick, DataSource dataSource, BenchReport report) {
    this.quick = quick;
    this.dataSource = dataSource;
    this.data = new BenchData(dataSource);
    this.floors = new Floors(dataSource);
    this.report = report;
  }

  /** 2. Draining a due backlog: the reaper against the set-based floor and a row-by-row loop. */
  void drain() throws Exception {
    int backlog = quick ? 20_000 : 100_000;
    int rowByRowRows = quick ? 4_000 : 10_000;
    int reps = 3;
    if (!liveRooms) {
      data.liveRooms(1000);
      liveRooms = true;
    }
    data.history(1_000_000);
    report.line(
        String.format(
            "%n## Backlog drain, in process (%,d due empty rooms, 3 roster rows each, every 10th"
                + " recorded, over 1M history; rows/s, median of %d runs). The reaper runs in the"
                + " bench's JVM with logging at WARN, no observers and no drain pause: the core's and"
                + " the store's speed, not the shipped worker's (that is the shipped-drain section)",
            backlog, reps));
    report.line(
        "| batch | reaper (drain mode) | set-based floor | row-by-row loop | reaper / floor | reaper / row-by-row |");
    report.line("|---:|---:|---:|---:|---:|---:|");
    for (int batch : List.of(100, 1000)) {
      List<Double> reaperRates = new ArrayList<>();
      List<Double> floorRates = new ArrayList<>();
      List<Double> rowRates = new ArrayList<>();
      ConferenceRoomReaperOptions o =
          ConferenceRoomReaperOptions.builder()
              .batchSize(batch)
              .drainEnabled(true)
              .drainPause(Duration.ZERO)
              .maxRunDuration(Duration.ofMinutes(10))
              .lockTtl(Duration.ofMinutes(11))
              .statementTimeout(Duration.ofMinutes(1))
              .build();
      for (int rep = 0; rep < reps; rep++) {
        data.backlog(backlog);
        Instant now = Instant.now();
        long t0 = System.nanoTime();
        CycleResult r = BenchReport.reaper(dataSource, o).runOnce(now, Cancellation.NONE);
        reaperRates.add(r.emptyTimeout() / ((System.nanoTime() - t0) / 1e9));
        check(r.emptyTimeout(), backlog, "reaper");

        data.backlog(backlog);
        now = Instant.now();
        t0 = System.nanoTime();
        long n = floors.setBased(now, Phase.EMPTY_ROOM.cutoff(now, o), batch);
        floorRates.add(n / ((System.nanoTime() - t0) / 1e9));
        check(n, backlog, "set-based");

        data.backlog(rowByRowRows);
        now = Instant.now();
        t0 = System.nanoTime();
        n = floors.rowByRow(now, Phase.EMPTY_ROOM.cutoff(now, o), batch, rowByRowRows);
        rowRates.add(n / ((System.nanoTime() - t0) / 1e9));
        check(n, rowByRowRows, "row-by-row");
      }
      double rr = BenchReport.median(reaperRates);
      double fr = BenchReport.median(floorRates);
      double br = BenchReport.median(rowRates);
      report.line(
          String.format(
              "| %d | %,.0f | %,.0f | %,.0f | %.2f | %.1f× |",
              batch, rr, fr, br, rr / fr, rr / br));
    }
  }

  private static void check(long closed, long expected, String what) {
    if (closed != expected) {
      throw new IllegalStateException(what + " closed " + closed + " of " + expected);
    }
  }

  /** 3. One default cycle that reaps 100 rows in each phase. */
  void defaultCycle() throws Exception {
    report.line("\n## Default cycle: 3 × 100 reaped at default options (1M history; median of 5)");
    List<Double> ms = new ArrayList<>();
    for (int rep = 0; rep < 5; rep++) {
      data.backlog(100);
      for (String sql : BenchData.provisionAndStaleDue(100)) {
        data.exec(sql);
      }
      CycleResult r =
          BenchReport.reaper(dataSource, ConferenceRoomReaperOptions.defaults())
              .runOnce(Instant.now(), Cancellation.NONE);
      if (r.emptyTimeout() != 100 || r.provisionFailed() != 100 || r.staleTimeout() != 100) {
        throw new IllegalStateException("default cycle closed " + r);
      }
      ms.add((double) r.durationMs());
    }
    report.line(
        String.format("cycle duration: median %.0f ms (runs: %s ms)", BenchReport.median(ms), ms));
  }

  /**
   * 3b. The 10,000-room backlog at default options, with drain mode on, against the spec's one
   * batch per cycle.
   */
  void drainMode() throws Exception {
    data.backlog(10_000);
    ConferenceRoomReaperOptions o =
        ConferenceRoomReaperOptions.builder().drainEnabled(true).build();
    long t0 = System.nanoTime();
    int cycles = 0;
    int closed = 0;
    CycleResult r;
    do {
      r = BenchReport.reaper(dataSource, o).runOnce(Instant.now(), Cancellation.NONE);
      closed += r.emptyTimeout();
      cycles++;
    } while (r.emptyTimeout() > 0);
    double seconds = (System.nanoTime() - t0) / 1e9;
    int spec = (10_000 + o.batchSize() - 1) / o.batchSize();
    report.line(
        String.format(
            "%n## Drain mode: 10,000 due empty rooms at default options (batch 100, interval 30 s)"));
    report.line(
        String.format(
            "drain mode on: %,d closed in %d cycle(s) (the last one finds nothing), %.1f s of work;"
                + " drain off (the spec's behaviour): %d cycles × 30 s = %d min",
            closed, cycles, seconds, spec, spec * 30 / 60));
  }
}
