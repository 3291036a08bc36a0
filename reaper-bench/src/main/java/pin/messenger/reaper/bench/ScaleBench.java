package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.schema.SchemaMigrations;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * Scale: an idle cycle's database work as the live rooms grow (10k, 200k, 1M occupied rooms,
 * nothing due, beside a history of ended rooms: 1M by default), with the messenger's heartbeat
 * running at a fixed rate, counted by the database itself ({@code pg_stat_statements}: shared
 * buffers hit or read, execution time) over every statement the worker sends in a cycle (run lock,
 * the three claims, the re-arms, the next-due read and the backlog gauges), against the three
 * statements that read every live room before deadlines ({@link ScaleStatements}) in the same run;
 * the heartbeat's HOT share and WAL per update; and what arming a table of unarmed rows costs.
 *
 * <p>Both designs' statements run as the worker sends them: on a small fixed HikariCP pool ({@link
 * #POOL_SIZE} connections), warmed up ({@link #WARM_UP} rounds) before counting, so each counts
 * what a reused connection reads, not a new backend's catalog-cache misses (which {@code
 * pg_stat_statements} counts as shared-buffer hits). Setup and bookkeeping run on a plain {@code
 * DataSource} and are not counted.
 *
 * <p>Then the database time per hour under next-due with rooms falling due at a steady rate,
 * against the design before deadlines: {@link ScaleRates} ({@code --rate-size}, {@code --rates},
 * {@code --rate-seconds}).
 *
 * <p>Needs a PostgreSQL server with {@code shared_preload_libraries=pg_stat_statements}; the
 * command is in docs/benchmarks.md ("Scale").
 */
public final class ScaleBench {
  /** Connections of the pool the worker's statements run on, a fixed pool as the worker's. */
  static final int POOL_SIZE = 4;

  /**
   * Rounds of each design's statements before counting: pgjdbc server-prepares a statement from its
   * 5th execution on a connection, and PostgreSQL plans the first 5 executions of a prepared
   * statement for their parameters before it may settle on a generic plan.
   */
  static final int WARM_UP = 12;

  private final DataSource db;
  private final DataSource pool;
  private final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();
  private final int cycles;
  private final int heartbeatsPerSecond;
  private final long history;

  ScaleBench(DataSource db, DataSource pool, int cycles, int heartbeatsPerSecond, long history) {
    this.db = db;
    this.pool = pool;
    this.cycles = cycles;
    this.heartbeatsPerSecond = heartbeatsPerSecond;
    this.history = history;
  }

  public static void main(String[] args) throws Exception {
    String url = arg(args, "--url", "jdbc:postgresql://localhost:5439/scale?user=postgres");
    List<Long> sizes = new ArrayList<>();
    for (String s : arg(args, "--sizes", "10000,200000,1000000").split(",")) {
      sizes.add(Long.parseLong(s.trim()));
    }
    BenchReport.quietLogging();
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    SchemaMigrations.migrate(ds);
    ScaleStatements.exec(ds, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    ScaleStatements.exec(ds, "CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    int cycles = Integer.parseInt(arg(args, "--cycles", "20"));
    int heartbeats = Integer.parseInt(arg(args, "--heartbeats", "200"));
    long history = Long.parseLong(arg(args, "--history", "1000000"));
    try (HikariDataSource pool = BenchData.pool(url, POOL_SIZE)) {
      ScaleBench bench = new ScaleBench(ds, pool, cycles, heartbeats, history);
      bench.sizes(sizes);
      new ScaleRates(ds, pool, heartbeats, history, cycles).run(args);
    }
  }

  private void sizes(List<Long> sizes) throws Exception {
    System.out.println(
        "WAL per heartbeat: all WAL of the window (the worker's included) without full-page images,"
            + " per heartbeat.");
    System.out.println(
        "| live rooms | deadlines: idle cycle buffers | ms | heartbeat HOT share | WAL B per"
            + " heartbeat | before: the three live-room statements, buffers | ms | heartbeat HOT share"
            + " | WAL B per heartbeat | arming all rooms: s, buffers per room |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (long n : sizes) {
      size(n);
    }
  }

  private void size(long n) throws Exception {
    ScaleTable.history(db, history);
    UUID[] rooms = ScaleTable.live(db, n, null);
    // Arming: what the first cycles after the migration do to a table the messenger filled.
    ScaleStatements.reset(db);
    long t0 = System.nanoTime();
    int rearmed = ScaleTable.arm(db, Instant.now(), options);
    double armSeconds = (System.nanoTime() - t0) / 1e9;
    ScaleStatements.Work arming = ScaleStatements.work(db);
    ScaleStatements.exec(db, "VACUUM ANALYZE messenger.conference_sessions");

    // The worker's statements, and the design before deadlines', on the pool, warmed up: a new
    // connection per statement would count its backend's catalog-cache misses as buffers.
    ConferenceRoomReaper reaper = BenchReport.reaper(pool, options);
    PostgresReaperStore store = new PostgresReaperStore(pool);
    long[] windows = ScaleStatements.windows(options);
    for (int i = 0; i < WARM_UP; i++) {
      idleCycle(reaper, store);
      ScaleStatements.oldIdle(pool, Instant.now(), windows);
    }
    Window fresh = window(rooms, () -> idleCycle(reaper, store));
    Window old = window(rooms, () -> ScaleStatements.oldIdle(pool, Instant.now(), windows));
    System.out.printf(
        Locale.ROOT,
        "| %,d | %,.0f | %.2f | %.3f | %.0f | %,.0f | %.2f | %.3f | %.0f | %.1f s, %.1f (%,d rows) |%n",
        n,
        (double) fresh.work().buffers() / cycles,
        fresh.work().execMs() / cycles,
        fresh.hot(),
        fresh.walPerHeartbeat(),
        (double) old.work().buffers() / cycles,
        old.work().execMs() / cycles,
        old.hot(),
        old.walPerHeartbeat(),
        armSeconds,
        (double) arming.buffers() / Math.max(1, rearmed),
        rearmed);
    for (String line : fresh.work().top()) {
      System.out.println("    deadlines: " + line);
    }
    for (String line : old.work().top()) {
      System.out.println("    before:    " + line);
    }
  }

  /** One design's window: its statements' work, and the heartbeat's HOT share and WAL meanwhile. */
  record Window(ScaleStatements.Work work, double hot, double walPerHeartbeat) {}

  interface Cycle {
    void run() throws Exception;
  }

  /**
   * {@code cycles} runs of {@code cycle} with the heartbeat running; the heartbeat's connection
   * closes at the end of the window, and its counters are read once its backend has reported them.
   */
  private Window window(UUID[] rooms, Cycle cycle) throws Exception {
    long[] updates0 = ScaleStatements.updates(db);
    String wal0 = ScaleStatements.walLsn(db);
    ScaleStatements.Work work;
    long beats;
    try (ScaleTable.Heartbeat heartbeat =
        new ScaleTable.Heartbeat(db, rooms, heartbeatsPerSecond)) {
      Thread.sleep(1000);
      ScaleStatements.reset(db);
      for (int i = 0; i < cycles; i++) {
        cycle.run();
      }
      work = ScaleStatements.work(db);
      Thread.sleep(1000);
      heartbeat.close();
      beats = heartbeat.beats();
    }
    // The heartbeat's backend reports its counters as it exits: wait until they are in.
    long[] updates1 = HeartbeatLoad.flushedCounters(db, updates0[0] + beats);
    long[] wal = ScaleStatements.wal(db, wal0, ScaleStatements.walLsn(db));
    return new Window(
        work,
        (double) (updates1[1] - updates0[1]) / (updates1[0] - updates0[0]),
        (double) (wal[0] - wal[1]) / beats);
  }

  /** One idle cycle as the worker under next-due sends it: the cycle, next-due, backlog gauges. */
  private void idleCycle(ConferenceRoomReaper reaper, PostgresReaperStore store) {
    Instant now = Instant.now();
    if (reaper.runOnce(now, Cancellation.NONE).reaped() != 0) {
      throw new IllegalStateException("an idle cycle closed a room");
    }
    store.dueTimes(Clock.systemUTC(), options);
    store.backlog(now, options);
  }

  static String arg(String[] args, String name, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    return fallback;
  }
}
