package pin.messenger.reaper.bench;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Section {@code heartbeat}: what the reaper's index costs the messenger's hottest write, the
 * presence heartbeat, by index design; and what each design costs the reaper (idle cycle at 10M
 * history, a due backlog's drain). The heartbeats run on a database of their own with 10,000 live
 * rooms; designs are measured in rounds, each round every design in a rotated order, and each
 * figure is a ratio against the no-index reference of the same round (the machine may be shared).
 * The heartbeats themselves are pgbench's ({@link HeartbeatLoad}); this class rebuilds each design
 * and reads the WAL and HOT counts around pgbench's window, which pgbench does not report.
 */
final class HeartbeatBench {

  /**
   * An index design: the key of {@code ix_conf_active} (null: no reaper index) over the live
   * statuses, and the table's fillfactor.
   */
  record Design(String name, @Nullable String key, int fillfactor) {
    String describe() {
      return (key == null ? "no reaper index" : key)
          + (fillfactor == 100 ? "" : ", fillfactor " + fillfactor);
    }
  }

  static final String PREDICATE = "WHERE status IN ('Provisioning', 'Active')";

  /** The design V6 ships; the section leaves every database it touched with it. */
  static final Design SHIPPED =
      new Design("V6 (ff90)", "(status, active_participant_count, created_at)", 90);

  static final List<Design> DESIGNS =
      List.of(
          new Design("no index", null, 100),
          new Design("V1", "(status, last_activity_at, active_participant_count, created_at)", 100),
          new Design(
              "V1, ff80", "(status, last_activity_at, active_participant_count, created_at)", 80),
          new Design("status,created", "(status, created_at)", 100),
          new Design("status,count,created", "(status, active_participant_count, created_at)", 100),
          SHIPPED);

  /** One design per key, for the reaper's side (drain, idle cycle): V1, the narrowest, V6. */
  static final List<Design> KEYS = List.of(DESIGNS.get(1), DESIGNS.get(3), SHIPPED);

  static final int LIVE_ROOMS = 10_000;

  private final boolean quick;
  private final BenchServer server;
  private final BenchReport report;
  private final Charts charts;
  private final DesignReaperCost reaperSide;

  HeartbeatBench(
      boolean quick,
      BenchServer server,
      DataSource idle,
      DataSource reference,
      BenchReport report,
      Charts charts) {
    this.quick = quick;
    this.server = server;
    this.report = report;
    this.charts = charts;
    this.reaperSide = new DesignReaperCost(quick, idle, reference, report);
  }

  void run() throws Exception {
    String url = server.url("heartbeat");
    server.recreate("heartbeat");
    try (var hb = BenchData.pool(url, 2)) {
      pin.messenger.reaper.schema.SchemaMigrations.migrate(hb);
      heartbeats(hb, url);
      reaperSide.drains(hb);
    }
    reaperSide.idleCycles();
  }

  private void heartbeats(DataSource hb, String url) throws Exception {
    BenchData data = new BenchData(hb);
    data.exec(
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at, started_at,
           last_activity_at, updated_at, active_participant_count, peak_participant_count)
        SELECT %s, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video', 'Active',
               gen_random_uuid(), now() - interval '30 minutes', now() - interval '29 minutes', now(), now(),
               1 + (random() * 4)::int, 5
          FROM generate_series(1, %d) n
        """
            .formatted(HeartbeatLoad.roomId("n"), LIVE_ROOMS));
    HeartbeatLoad load = new HeartbeatLoad(hb, url, LIVE_ROOMS);
    int rounds = quick ? 2 : 3;
    Duration warm = Duration.ofSeconds(quick ? 2 : 5);
    Duration window = Duration.ofSeconds(quick ? 5 : 20);
    report.line(
        String.format(
            "%n## Heartbeat cost by index design (%,d live rooms, %d clients, autocommit `%s`;"
                + " %d rounds, each design %d s after a %d s warm-up in a rotated order; ratios against the"
                + " no-index run of the same round, medians)",
            LIVE_ROOMS,
            HeartbeatLoad.CLIENTS,
            HeartbeatLoad.HEARTBEAT,
            rounds,
            window.toSeconds(),
            warm.toSeconds()));
    Map<Design, List<HeartbeatLoad.Window>> windows = new LinkedHashMap<>();
    DESIGNS.forEach(d -> windows.put(d, new ArrayList<>()));
    for (int round = 0; round < rounds; round++) {
      for (int k = 0; k < DESIGNS.size(); k++) {
        Design d = BenchReport.rotated(DESIGNS, round, k);
        apply(data, d, true);
        load.clients(warm);
        HeartbeatLoad.Window w = load.measure(window);
        Objects.requireNonNull(windows.get(d)).add(w);
        System.out.printf(
            "  round %d %-45s %,8.0f hb/s %6.0f B WAL/hb HOT %.2f%n",
            round + 1, d.name(), w.tps(), w.walPerHeartbeat(), w.hotRatio());
      }
    }
    apply(data, SHIPPED, true);
    report.line(
        "| design (ix_conf_active key; fillfactor) | heartbeats/s | vs no index | WAL B/heartbeat"
            + " | vs no index | HOT updates |");
    report.line("|---|---:|---:|---:|---:|---:|");
    List<HeartbeatLoad.Window> none = Objects.requireNonNull(windows.get(DESIGNS.get(0)));
    List<Double> noneTps = none.stream().map(HeartbeatLoad.Window::tps).toList();
    List<Double> noneWal = none.stream().map(HeartbeatLoad.Window::walPerHeartbeat).toList();
    Map<String, Double> tpsRatio = new LinkedHashMap<>();
    Map<String, Double> walRatio = new LinkedHashMap<>();
    Map<String, Double> hotRatio = new LinkedHashMap<>();
    for (Design d : DESIGNS) {
      List<HeartbeatLoad.Window> ws = Objects.requireNonNull(windows.get(d));
      List<Double> tps = ws.stream().map(HeartbeatLoad.Window::tps).toList();
      List<Double> wal = ws.stream().map(HeartbeatLoad.Window::walPerHeartbeat).toList();
      double t = BenchReport.median(BenchReport.pairedRatios(tps, noneTps));
      double w = BenchReport.median(BenchReport.pairedRatios(wal, noneWal));
      double h = BenchReport.median(ws.stream().map(HeartbeatLoad.Window::hotRatio).toList());
      tpsRatio.put(d.name(), t);
      walRatio.put(d.name(), w);
      hotRatio.put(d.name(), h);
      report.line(
          String.format(
              "| %s%s | %,.0f | %.2f× | %.0f | %.2f× | %.0f %% |",
              d.describe(),
              d.equals(SHIPPED) ? " (V6)" : "",
              BenchReport.median(tps),
              t,
              BenchReport.median(wal),
              w,
              h * 100));
    }
    report.line(
        String.format(
            "V6 design against no index: heartbeat TPS %.2f× (target ≥ 0.90×), WAL per heartbeat %.2f×"
                + " (target ≤ 1.5×)",
            tpsRatio.get(SHIPPED.name()), walRatio.get(SHIPPED.name())));
    Map<String, Map<String, Double>> bars = new LinkedHashMap<>();
    bars.put("heartbeats/s vs no index", tpsRatio);
    bars.put("WAL per heartbeat vs no index", walRatio);
    bars.put("HOT-update share", hotRatio);
    charts.bars(
        "heartbeat-cost-by-index.png",
        "Presence heartbeat cost by ix_conf_active design (10k live rooms, 2 clients; medians)",
        "design (key; fillfactor)",
        "ratio",
        bars);
  }

  /** Rebuilds the table at the design's fillfactor (when asked) and its ix_conf_active. */
  static void apply(BenchData data, Design d, boolean rewrite) throws SQLException {
    data.exec("DROP INDEX IF EXISTS messenger.ix_conf_active");
    if (rewrite) {
      data.exec(
          "ALTER TABLE messenger.conference_sessions SET (fillfactor = " + d.fillfactor() + ")");
      data.exec("VACUUM FULL messenger.conference_sessions");
    }
    createIndex(data, d);
    data.exec("VACUUM ANALYZE messenger.conference_sessions");
    data.exec("CHECKPOINT");
  }

  /** The design's {@code ix_conf_active} (none for the no-index design). */
  static void createIndex(BenchData data, Design d) throws SQLException {
    if (d.key() != null) {
      data.exec(
          "CREATE INDEX ix_conf_active ON messenger.conference_sessions "
              + d.key()
              + " "
              + PREDICATE);
    }
  }
}
