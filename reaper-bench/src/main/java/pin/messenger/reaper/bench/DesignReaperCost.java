package pin.messenger.reaper.bench;

import static pin.messenger.reaper.bench.HeartbeatBench.KEYS;
import static pin.messenger.reaper.bench.HeartbeatBench.LIVE_ROOMS;
import static pin.messenger.reaper.bench.HeartbeatBench.SHIPPED;
import static pin.messenger.reaper.bench.HeartbeatBench.apply;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import pin.messenger.reaper.bench.HeartbeatBench.Design;
import pin.messenger.reaper.bench.IdleCycleJmh.Score;

/**
 * The heartbeat section's other side: what each index design ({@link HeartbeatBench#KEYS}) costs
 * the reaper. A due backlog's drain (set-based floor) beside the heartbeat database's 10,000 live
 * rooms, and the idle cycle at 10M history (1M with {@code --quick}) against a 10k database with
 * the same design, timed by JMH ({@link IdleCycleJmh}). Each database is left with the design V6
 * ships.
 */
record DesignReaperCost(boolean quick, DataSource idle, DataSource reference, BenchReport report) {

  void drains(DataSource hb) throws Exception {
    int backlog = quick ? 5_000 : 20_000;
    List<Design> designs = KEYS;
    report.line(
        String.format(
            "%n## Drain of %,d due empty rooms by design (set-based floor, beside the %,d live rooms;"
                + " rows/s, median of 3 rounds)",
            backlog, LIVE_ROOMS));
    report.line("| design | batch 100 | batch 1000 | vs V1, batch 100 | vs V1, batch 1000 |");
    report.line("|---|---:|---:|---:|---:|");
    BenchData data = new BenchData(hb);
    Floors floors = new Floors(hb);
    // One untimed drain first, so the first design measured does not pay for the warm-up.
    data.backlog(backlog);
    floors.setBasedRate(1000, backlog);
    List<Integer> batches = List.of(100, 1000);
    Map<Design, List<List<Double>>> runs = new LinkedHashMap<>();
    designs.forEach(d -> runs.put(d, List.of(new ArrayList<>(), new ArrayList<>())));
    // Rounds, each design in a rotated order: the machine's load drifts over minutes.
    for (int rep = 0; rep < 3; rep++) {
      for (int k = 0; k < designs.size(); k++) {
        Design d = BenchReport.rotated(designs, rep, k);
        apply(data, d, true);
        for (int b = 0; b < batches.size(); b++) {
          data.backlog(backlog);
          Objects.requireNonNull(runs.get(d))
              .get(b)
              .add(floors.setBasedRate(batches.get(b), backlog));
        }
      }
    }
    Map<Design, double[]> rates = new LinkedHashMap<>();
    runs.forEach(
        (d, r) ->
            rates.put(
                d, new double[] {BenchReport.median(r.get(0)), BenchReport.median(r.get(1))}));
    double[] v1 = Objects.requireNonNull(rates.get(designs.get(0)));
    rates.forEach(
        (d, r) ->
            report.line(
                String.format(
                    "| %s | %,.0f | %,.0f | %.2f× | %.2f× |",
                    d.describe(), r[0], r[1], r[0] / v1[0], r[1] / v1[1])));
    data.backlog(0);
    apply(data, SHIPPED, true);
  }

  void idleCycles() throws Exception {
    long history = quick ? 1_000_000L : 10_000_000L;
    BenchData idleData = new BenchData(idle);
    BenchData refData = new BenchData(reference);
    idleData.history(history);
    report.line(
        String.format(
            "%n## Idle cycle by design (1,000 live rooms, nothing due; %,d terminal rows against a database"
                + " of 10k with the same design; JMH: ms per call, mean ± 99.9 %% error)",
            history));
    report.line(
        "| design | cycle at %,d history, ms | cycle at 10k, ms | %,d vs 10k |"
            .formatted(history, history));
    report.line("|---|---:|---:|---:|");
    String big = BenchData.url(idle);
    String small = BenchData.url(reference);
    // Only the index changes here: a fillfactor takes a rewrite of the 10M table to show, and the
    // claims read index entries and the live rows' pages, not the history.
    for (Design d : KEYS) {
      apply(idleData, d, false);
      apply(refData, d, false);
      Map<String, Score> cycle =
          Objects.requireNonNull(
              IdleCycleJmh.run(
                      List.of("reaperCycle"),
                      List.of(small, big),
                      quick ? 3 : 5,
                      IdleCycleJmh.forks())
                  .get("reaperCycle"));
      Score b = Objects.requireNonNull(cycle.get(big));
      Score s = Objects.requireNonNull(cycle.get(small));
      report.line(
          String.format(
              "| %s | %.2f ± %.2f | %.2f ± %.2f | %.2f× |",
              d.key(), b.ms(), b.error(), s.ms(), s.error(), b.ms() / s.ms()));
    }
    idleData.exec("DROP INDEX IF EXISTS messenger.ix_conf_active");
    long t0 = System.nanoTime();
    HeartbeatBench.createIndex(idleData, SHIPPED);
    report.line(
        String.format(
            "Building the V6 index over %,d rows (what V6's plain CREATE INDEX makes writers wait for): %.1f s",
            history + 1000, (System.nanoTime() - t0) / 1e9));
    apply(idleData, SHIPPED, false);
    apply(refData, SHIPPED, false);
  }
}
