package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperLoop;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.demo.MessengerSimulator;
import pin.messenger.reaper.demo.SloReport;
import pin.messenger.reaper.schema.SchemaMigrations;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * {@code bin/reaper bench [--quick]}: the reaper against the raw-SQL floor on its own schema, in
 * one run on a fresh embedded PostgreSQL. Every figure is a median of repeated runs; ratios compare
 * runs of the same process.
 */
public final class ReaperBenchmark {
  private final boolean quick;
  private final HikariDataSource dataSource;
  private final BenchData data;
  private final Floors floors;
  private final StringBuilder report = new StringBuilder();

  /**
   * Section 1 has two databases of its own on the same server: one whose history grows (10k, 1M,
   * 10M terminal rows) and a reference that keeps 10k, timed in turn with it. Neither sees the
   * drain sections' churn.
   */
  private final HikariDataSource idle;

  private final HikariDataSource reference;

  private ReaperBenchmark(
      boolean quick,
      HikariDataSource dataSource,
      HikariDataSource idle,
      HikariDataSource reference) {
    this.quick = quick;
    this.dataSource = dataSource;
    this.idle = idle;
    this.reference = reference;
    this.data = new BenchData(dataSource);
    this.floors = new Floors(dataSource);
  }

  public static int run(List<String> args) throws Exception {
    boolean quick = args.contains("--quick");
    // Only the figures: the embedded server and the pool are chatty at INFO.
    ((ch.qos.logback.classic.Logger)
            org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    Path dir = Files.createTempDirectory("reaper-bench");
    try (EmbeddedPostgres pg =
            EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(true)
                .setServerConfig("shared_buffers", "512MB")
                .setServerConfig("max_wal_size", "4GB")
                .start();
        HikariDataSource ds = new HikariDataSource();
        HikariDataSource idle = new HikariDataSource();
        HikariDataSource ref = new HikariDataSource()) {
      ds.setJdbcUrl(pg.getJdbcUrl("postgres", "postgres"));
      ds.setMaximumPoolSize(4);
      SchemaMigrations.migrate(ds);
      try (var c = ds.getConnection();
          var st = c.createStatement()) {
        st.execute("CREATE DATABASE idle");
        st.execute("CREATE DATABASE reference");
      }
      for (var side : List.of(Map.entry(idle, "idle"), Map.entry(ref, "reference"))) {
        side.getKey().setJdbcUrl(pg.getJdbcUrl("postgres", side.getValue()));
        side.getKey().setMaximumPoolSize(2);
        SchemaMigrations.migrate(side.getKey());
        new BenchData(side.getKey()).liveRooms(1000);
      }
      new BenchData(ref).history(10_000);
      ReaperBenchmark bench = new ReaperBenchmark(quick, ds, idle, ref);
      bench.line(
          "# conference-room-reaper benchmark ("
              + (quick ? "quick" : "full")
              + "), "
              + Runtime.getRuntime().availableProcessors()
              + " cores, PostgreSQL "
              + version(ds)
              + ", "
              + Instant.now());
      bench.idleHeader();
      bench.idle(quick ? List.of(10_000L, 1_000_000L) : List.of(10_000L, 1_000_000L, 10_000_000L));
      bench.drain();
      bench.defaultCycle();
      bench.drainMode();
      bench.slo();
      System.out.println("\n" + bench.report);
    }
    return 0;
  }

  private static String version(HikariDataSource ds) throws Exception {
    try (var c = ds.getConnection();
        var st = c.createStatement();
        var rs = st.executeQuery("SHOW server_version")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private void line(String s) {
    System.out.println(s);
    report.append(s).append('\n');
  }

  private ConferenceRoomReaper reaper(ConferenceRoomReaperOptions options) {
    return reaper(dataSource, options);
  }

  private static ConferenceRoomReaper reaper(
      HikariDataSource database, ConferenceRoomReaperOptions options) {
    return new ConferenceRoomReaper(
        new PostgresReaperStore(database), options, ReaperObserver.NONE, List.of());
  }

  private boolean liveRooms;

  private void idleHeader() {
    line(
        "\n## 1. Idle cycle vs history (1,000 live rooms, nothing due, in a database of its own; median of 41 cycles,"
            + " each timed in turn with the same cycle on a second database of the same server that keeps 10k terminal"
            + " rows)");
    idleHeaderRow();
  }

  private void idleHeaderRow() {
    line(
        "| terminal rows | reaper cycle (lock + 3 phases) ms | 3 raw claims ms | ratio to raw"
            + " | same cycle, 10k database, ms | cycle vs 10k database (median of paired ratios) |");
    line("|---:|---:|---:|---:|---:|---:|");
  }

  /**
   * 1. Idle cycle (nothing due, 1,000 live rooms) as the history grows, against the three raw
   * claims.
   */
  private void idle(List<Long> sizes) throws Exception {
    BenchData idleData = new BenchData(idle);
    Floors idleFloors = new Floors(idle);
    ConferenceRoomReaperOptions o = ConferenceRoomReaperOptions.defaults();
    ConferenceRoomReaper reaper = reaper(idle, o);
    ConferenceRoomReaper referenceReaper = reaper(reference, o);
    // Warm the JIT and the caches before the first measured size, so the 10k case is not paying for
    // start-up.
    for (int i = 0; i < 300; i++) {
      Instant now = Instant.now();
      reaper.runOnce(now, Cancellation.NONE);
      referenceReaper.runOnce(now, Cancellation.NONE);
      idleFloors.rawClaims(
          Phase.EMPTY_ROOM.cutoff(now, o),
          Phase.PROVISION_TIMEOUT.cutoff(now, o),
          Phase.STALE_LIVE.cutoff(now, o));
    }
    for (long history : sizes) {
      idleData.history(history);
      List<Double> cycle = new ArrayList<>();
      List<Double> raw = new ArrayList<>();
      List<Double> ref = new ArrayList<>();
      List<Double> paired = new ArrayList<>();
      for (int i = 0; i < 46; i++) {
        Instant now = Instant.now();
        long r0 = System.nanoTime();
        CycleResult rr = referenceReaper.runOnce(now, Cancellation.NONE);
        long t0 = System.nanoTime();
        CycleResult r = reaper.runOnce(now, Cancellation.NONE);
        long t1 = System.nanoTime();
        idleFloors.rawClaims(
            Phase.EMPTY_ROOM.cutoff(now, o),
            Phase.PROVISION_TIMEOUT.cutoff(now, o),
            Phase.STALE_LIVE.cutoff(now, o));
        long t2 = System.nanoTime();
        if (r.reaped() != 0 || rr.reaped() != 0) {
          throw new IllegalStateException("idle cycle reaped " + r.reaped() + " / " + rr.reaped());
        }
        if (i >= 5) { // warm-up
          cycle.add((t1 - t0) / 1e6);
          raw.add((t2 - t1) / 1e6);
          ref.add((t0 - r0) / 1e6);
          paired.add((double) (t1 - t0) / (t0 - r0));
        }
      }
      double c = median(cycle);
      double w = median(raw);
      line(
          String.format(
              "| %,d | %.2f | %.2f | %.1f× | %.2f | %.2f× |",
              history, c, w, c / w, median(ref), median(paired)));
    }
  }

  /** 2. Draining a due backlog: the reaper against the set-based floor and a row-by-row loop. */
  private void drain() throws Exception {
    int backlog = quick ? 20_000 : 100_000;
    int rowByRowRows = quick ? 4_000 : 10_000;
    int reps = 3;
    if (!liveRooms) {
      data.liveRooms(1000);
      liveRooms = true;
    }
    data.history(1_000_000);
    line(
        String.format(
            "%n## 2. Backlog drain (%,d due empty rooms, 3 roster rows each, every 10th recorded, over"
                + " 1M history; rows/s, median of %d runs)",
            backlog, reps));
    line(
        "| batch | reaper (drain mode) | set-based floor | row-by-row loop | reaper / floor | reaper / row-by-row |");
    line("|---:|---:|---:|---:|---:|---:|");
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
        CycleResult r = reaper(o).runOnce(now, Cancellation.NONE);
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
      double rr = median(reaperRates);
      double fr = median(floorRates);
      double br = median(rowRates);
      line(
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
  private void defaultCycle() throws Exception {
    line("\n## 3. Default cycle: 3 × 100 reaped at default options (1M history; median of 5)");
    List<Double> ms = new ArrayList<>();
    for (int rep = 0; rep < 5; rep++) {
      data.backlog(100);
      data.exec(
          """
          INSERT INTO messenger.conference_sessions (id, chat_id, deal_id, tenant_id, media_type, status,
            started_by_user_id, created_at, last_activity_at, updated_at)
          SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio', 'Provisioning',
                 gen_random_uuid(), now() - interval '10 minutes', now() - interval '10 minutes', now()
            FROM generate_series(1, 100)""");
      data.exec(
          """
          INSERT INTO messenger.conference_sessions (id, chat_id, deal_id, tenant_id, media_type, status,
            started_by_user_id, created_at, started_at, last_activity_at, updated_at, active_participant_count)
          SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio', 'Active',
                 gen_random_uuid(), now() - interval '6 hours', now() - interval '6 hours', now() - interval '5 hours',
                 now(), 2
            FROM generate_series(1, 100)""");
      CycleResult r =
          reaper(ConferenceRoomReaperOptions.defaults()).runOnce(Instant.now(), Cancellation.NONE);
      if (r.emptyTimeout() != 100 || r.provisionFailed() != 100 || r.staleTimeout() != 100) {
        throw new IllegalStateException("default cycle closed " + r.toJson());
      }
      ms.add((double) r.durationMs());
    }
    line(String.format("cycle duration: median %.0f ms (runs: %s ms)", median(ms), ms));
  }

  /**
   * 3b. The 10,000-room backlog at default options, with drain mode on, against the spec's one
   * batch per cycle.
   */
  private void drainMode() throws Exception {
    data.backlog(10_000);
    ConferenceRoomReaperOptions o =
        ConferenceRoomReaperOptions.builder().drainEnabled(true).build();
    long t0 = System.nanoTime();
    int cycles = 0;
    int closed = 0;
    CycleResult r;
    do {
      r = reaper(o).runOnce(Instant.now(), Cancellation.NONE);
      closed += r.emptyTimeout();
      cycles++;
    } while (r.emptyTimeout() > 0);
    double seconds = (System.nanoTime() - t0) / 1e9;
    int spec = (10_000 + o.batchSize() - 1) / o.batchSize();
    line(
        String.format(
            "%n## 3b. Drain mode: 10,000 due empty rooms at default options (batch 100, interval 30 s)"));
    line(
        String.format(
            "drain mode on: %,d closed in %d cycle(s) (the last one finds nothing), %.1f s of work;"
                + " drain off (the spec's behaviour): %d cycles × 30 s = %d min",
            closed, cycles, seconds, spec, spec * 30 / 60));
  }

  /** 4. SLO lateness in a simulated run (the demo's messenger and timings). */
  private void slo() throws Exception {
    Duration runFor = quick ? Duration.ofSeconds(20) : Duration.ofSeconds(60);
    ConferenceRoomReaperOptions o =
        ConferenceRoomReaperOptions.builder()
            .pollingInterval(Duration.ofSeconds(1))
            .emptyRoomGrace(Duration.ofSeconds(3))
            .provisionTimeout(Duration.ofSeconds(4))
            .staleLiveTimeout(Duration.ofSeconds(8))
            .lockTtl(Duration.ofSeconds(20))
            .maxRunDuration(Duration.ofSeconds(10))
            .statementTimeout(Duration.ofSeconds(4))
            .build();
    data.exec(
        "TRUNCATE messenger.conference_sessions, messenger.integration_outbox, messenger.realtime_outbox,"
            + " messenger.recorder_stop_requests, messenger.conference_participants, messenger.call_recordings");
    MessengerSimulator simulator =
        new MessengerSimulator(dataSource, Clock.systemUTC(), o.emptyRoomGrace(), 42);
    ScheduledExecutorService messenger = Executors.newSingleThreadScheduledExecutor();
    try (ReaperLoop loop = new ReaperLoop(reaper(o), Clock.systemUTC(), null)) {
      messenger.scheduleAtFixedRate(simulator::step, 0, 200, TimeUnit.MILLISECONDS);
      loop.start();
      Thread.sleep(runFor.toMillis());
    } finally {
      messenger.shutdownNow();
    }
    SloReport report = SloReport.measure(dataSource, o, simulator.rejoinedRooms(), Duration.ZERO);
    line(
        String.format(
            "%n## 4. SLO lateness (simulated messenger, %d s, interval 1 s, grace 3 s; close − due)",
            runFor.toSeconds()));
    line("| end reason | closed | p50 ms | p99 ms | max ms | over the interval |");
    line("|---|---:|---:|---:|---:|---:|");
    report
        .figures()
        .values()
        .forEach(
            f ->
                line(
                    String.format(
                        "| %s | %d | %d | %d | %d | %d |",
                        f.endReason(),
                        f.closed(),
                        f.p50Ms(),
                        f.p99Ms(),
                        f.maxMs(),
                        f.violations())));
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
