package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.schema.SchemaMigrations;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * Scale: an idle cycle's database work as the live rooms grow (10k, 100k, 1M occupied rooms,
 * nothing due, beside a history of ended rooms: 1M by default), with the messenger's heartbeat
 * running at a fixed rate, counted by the database itself ({@code pg_stat_statements}: shared
 * buffers hit or read, execution time) over every statement the worker sends in a cycle (run lock,
 * the three claims, the re-arms, the next-due read and the backlog gauges), against the three
 * statements that read every live room before deadlines ({@link ScaleStatements}) in the same run;
 * the heartbeat's HOT share and WAL per update; and what arming a table of unarmed rows costs.
 *
 * <p>Needs a PostgreSQL server with {@code shared_preload_libraries=pg_stat_statements}; the
 * command is in docs/benchmarks.md ("Scale").
 */
public final class ScaleBench {
  private final DataSource db;
  private final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();
  private final int cycles;
  private final int heartbeatsPerSecond;
  private final long history;

  ScaleBench(DataSource db, int cycles, int heartbeatsPerSecond, long history) {
    this.db = db;
    this.cycles = cycles;
    this.heartbeatsPerSecond = heartbeatsPerSecond;
    this.history = history;
  }

  public static void main(String[] args) throws Exception {
    String url = arg(args, "--url", "jdbc:postgresql://localhost:5439/scale?user=postgres");
    List<Long> sizes = new ArrayList<>();
    for (String s : arg(args, "--sizes", "10000,100000,1000000").split(",")) {
      sizes.add(Long.parseLong(s.trim()));
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    SchemaMigrations.migrate(ds);
    ScaleStatements.exec(ds, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    ScaleStatements.exec(ds, "CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    ScaleBench bench =
        new ScaleBench(
            ds,
            Integer.parseInt(arg(args, "--cycles", "20")),
            Integer.parseInt(arg(args, "--heartbeats", "200")),
            Long.parseLong(arg(args, "--history", "1000000")));
    System.out.println(
        "WAL per heartbeat: all WAL of the window (the worker's included) without full-page images,"
            + " per heartbeat.");
    System.out.println(
        "| live rooms | deadlines: idle cycle buffers | ms | heartbeat HOT share | WAL B per"
            + " heartbeat | before: the three live-room statements, buffers | ms | heartbeat HOT share"
            + " | WAL B per heartbeat | arming all rooms: s, buffers per room |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (long n : sizes) {
      bench.size(n);
    }
  }

  private void size(long n) throws Exception {
    UUID[] rooms = populate(n);
    // Arming: what the first cycles after the migration do to a table the messenger filled.
    ScaleStatements.reset(db);
    long t0 = System.nanoTime();
    int rearmed = arm(Instant.now());
    double armSeconds = (System.nanoTime() - t0) / 1e9;
    ScaleStatements.Work arming = ScaleStatements.work(db);
    ScaleStatements.exec(db, "VACUUM ANALYZE messenger.conference_sessions");

    ConferenceRoomReaper reaper = BenchReport.reaper(db, options);
    PostgresReaperStore store = new PostgresReaperStore(db);
    long[] windows = {
      micros(Phase.EMPTY_ROOM.window(options)),
      micros(Phase.PROVISION_TIMEOUT.window(options)),
      micros(Phase.STALE_LIVE.window(options))
    };
    for (int i = 0; i < 3; i++) {
      idleCycle(reaper, store);
      ScaleStatements.oldIdle(db, Instant.now(), windows);
    }
    Window fresh = window(rooms, () -> idleCycle(reaper, store));
    Window old = window(rooms, () -> ScaleStatements.oldIdle(db, Instant.now(), windows));
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
   * closes at the end of the window, so its backend has reported its counters when they are read.
   */
  private Window window(UUID[] rooms, Cycle cycle) throws Exception {
    long[] updates0 = ScaleStatements.updates(db);
    String wal0 = ScaleStatements.walLsn(db);
    AtomicBoolean beating = new AtomicBoolean(true);
    AtomicLong beats = new AtomicLong();
    Thread heartbeat = new Thread(() -> heartbeat(rooms, beating, beats), "heartbeat");
    heartbeat.start();
    ScaleStatements.Work work;
    try {
      Thread.sleep(1000);
      ScaleStatements.reset(db);
      for (int i = 0; i < cycles; i++) {
        cycle.run();
      }
      work = ScaleStatements.work(db);
      Thread.sleep(1000);
    } finally {
      beating.set(false);
      heartbeat.join();
    }
    Thread.sleep(1500);
    long[] updates1 = ScaleStatements.updates(db);
    long[] wal = ScaleStatements.wal(db, wal0, ScaleStatements.walLsn(db));
    return new Window(
        work,
        (double) (updates1[1] - updates0[1]) / (updates1[0] - updates0[0]),
        (double) (wal[0] - wal[1]) / beats.get());
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

  /** Re-arms until nothing is left to arm, as the first cycles would; returns the rows armed. */
  private int arm(Instant asOf) {
    PostgresReaperStore store = new PostgresReaperStore(db);
    int total = 0;
    while (true) {
      int armed;
      try (ReaperStore.Batch batch =
          store.beginBatch(Duration.ofMinutes(5), Duration.ofMinutes(5))) {
        armed = batch.rearm(Phase.STALE_LIVE, asOf, options);
        batch.commit(new Unlocked());
      }
      total += armed;
      if (armed == 0) {
        return total;
      }
    }
  }

  /** {@code n} occupied rooms, last active within the hour: nothing due in any phase. */
  private UUID[] populate(long n) throws Exception {
    ScaleStatements.exec(db, "TRUNCATE messenger.conference_sessions");
    // The ended rooms of the past: their deadlines (armed long ago, or never) are all in the past,
    // which is what the table's statistics then say of every deadline.
    ScaleStatements.exec(
        db,
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, end_reason, started_by_user_id,
           created_at, started_at, ended_at, last_activity_at, updated_at, active_participant_count,
           peak_participant_count, reaper_window_start)
        SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video',
               'Ended', 'Completed', gen_random_uuid(), t - interval '1 hour', t - interval '1 hour',
               t, t, t, 0, 2, CASE WHEN i %% 2 = 0 THEN t ELSE '-infinity' END
          FROM (SELECT i, now() - interval '1 day' - random() * interval '90 days' AS t
                  FROM generate_series(1, %d) i) g
        """
            .formatted(history));
    ScaleStatements.exec(
        db,
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at,
           started_at, last_activity_at, updated_at, active_participant_count, peak_participant_count)
        SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video',
               'Active', gen_random_uuid(), t - interval '1 hour', t - interval '1 hour', t, t, 2, 2
          FROM (SELECT now() - random() * interval '1 hour' AS t FROM generate_series(1, %d)) g
        """
            .formatted(n));
    ScaleStatements.exec(db, "VACUUM ANALYZE messenger.conference_sessions");
    List<UUID> ids = new ArrayList<>();
    try (Connection c = db.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id FROM messenger.conference_sessions WHERE status = 'Active'")) {
      while (rs.next()) {
        ids.add(rs.getObject(1, UUID.class));
      }
    }
    return ids.toArray(UUID[]::new);
  }

  /** The messenger's presence heartbeat on random rooms at a fixed rate, one connection. */
  private void heartbeat(UUID[] rooms, AtomicBoolean beating, AtomicLong beats) {
    long interval = 1_000_000_000L / heartbeatsPerSecond;
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement(HeartbeatLoad.HEARTBEAT)) {
      long next = System.nanoTime();
      while (beating.get()) {
        ps.setObject(1, rooms[ThreadLocalRandom.current().nextInt(rooms.length)]);
        ps.executeUpdate();
        beats.incrementAndGet();
        next += interval;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("heartbeat failed", e);
    }
  }

  private static long micros(Duration d) {
    return d.getSeconds() * 1_000_000L + d.getNano() / 1_000;
  }

  private static String arg(String[] args, String name, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    return fallback;
  }

  /** The bench arms outside a cycle: no run lock to hold. */
  private static final class Unlocked implements ReaperStore.RunLock {
    @Override
    public boolean acquired() {
      return true;
    }

    @Override
    public void verifyHeld() {}

    @Override
    public void close() {}
  }
}
