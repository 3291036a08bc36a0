package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;

/**
 * A steady stream of orphaned rooms: every 100 ms, in one statement, the rooms that became due
 * since the last tick at the current rate. Each room is written at the moment it becomes due (its
 * reference time lies exactly one window in the past), so the options' windows can stay at their
 * defaults without the benchmark waiting for them. The mix, by the room's running number: 8 in 10
 * empty rooms past the empty-room grace (3 roster rows who all left, every 10th room with a live
 * recording, as {@link BenchData#backlog} makes them), 1 in 10 stuck in Provisioning past the
 * provision timeout, 1 in 10 Active with 2 participants never seen to leave and no presence for the
 * stale-live timeout. The due moment of every room goes into {@code bench_limit_rooms}.
 */
final class OrphanGenerator implements AutoCloseable {
  static final long TICK_MS = 100;

  private static final String INSERT =
      """
      WITH e AS MATERIALIZED (
        SELECT gen_random_uuid() AS id, i FROM generate_series(1, ?) AS i
      ), p AS MATERIALIZED (
        SELECT gen_random_uuid() AS id FROM generate_series(1, ?)
      ), s AS MATERIALIZED (
        SELECT gen_random_uuid() AS id FROM generate_series(1, ?)
      ), empty_rooms AS (
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at, started_at,
           last_activity_at, updated_at, active_participant_count, peak_participant_count)
        SELECT e.id, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video', 'Active', gen_random_uuid(),
               now() - %1$s - interval '40 minutes', now() - %1$s - interval '39 minutes', now() - %1$s,
               now() - %1$s, 0, 3
          FROM e
      ), empty_roster AS (
        INSERT INTO messenger.conference_participants (conference_id, user_id, joined_at, left_at)
        SELECT e.id, gen_random_uuid(), now() - %1$s - interval '39 minutes', now() - %1$s
          FROM e, generate_series(1, 3)
      ), recordings AS (
        INSERT INTO messenger.call_recordings (id, conference_id, status, created_at, updated_at)
        SELECT gen_random_uuid(), e.id, 'Recording', now() - %1$s - interval '38 minutes', now() - %1$s
          FROM e WHERE (? + e.i) %% 10 = 0
      ), provisioning AS (
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at,
           last_activity_at, updated_at)
        SELECT p.id, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio', 'Provisioning',
               gen_random_uuid(), now() - %2$s, now() - %2$s, now() - %2$s
          FROM p
      ), stale AS (
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at, started_at,
           last_activity_at, updated_at, active_participant_count, peak_participant_count)
        SELECT s.id, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video', 'Active', gen_random_uuid(),
               now() - %3$s - interval '1 hour', now() - %3$s - interval '59 minutes', now() - %3$s,
               now() - %3$s, 2, 2
          FROM s
      ), stale_roster AS (
        INSERT INTO messenger.conference_participants (conference_id, user_id, joined_at, left_at)
        SELECT s.id, gen_random_uuid(), now() - %3$s - interval '59 minutes', NULL
          FROM s, generate_series(1, 2)
      )
      INSERT INTO bench_limit_rooms (id, kind, due_at)
      SELECT id, 'empty-room', now() FROM e
      UNION ALL SELECT id, 'provision-timeout', now() FROM p
      UNION ALL SELECT id, 'stale-live', now() FROM s
      """;

  private final DataSource dataSource;
  private final String insert;
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "orphan-generator");
            t.setDaemon(true);
            return t;
          });
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private volatile double rate;
  private volatile long stepStart;
  private volatile long stepBase;

  OrphanGenerator(DataSource dataSource, ConferenceRoomReaperOptions options) {
    this.dataSource = dataSource;
    this.insert =
        INSERT.formatted(
            interval(options.emptyRoomGrace().toMillis()),
            interval(options.provisionTimeout().toMillis()),
            interval(options.staleLiveTimeout().toMillis()));
  }

  private static String interval(long millis) {
    return "interval '" + millis + " milliseconds'";
  }

  /** Creates the table of due moments (on the benchmark's own database). */
  static void createTable(BenchData data) throws SQLException {
    data.exec(
        "CREATE TABLE bench_limit_rooms (id uuid PRIMARY KEY, kind text NOT NULL, due_at timestamptz NOT NULL)");
    data.exec("CREATE INDEX ON bench_limit_rooms (due_at)");
  }

  void start() {
    var unused = ticker.scheduleAtFixedRate(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
  }

  /** From now on, {@code roomsPerSecond} rooms fall due per second. */
  synchronized void rate(double roomsPerSecond) {
    stepBase = written.get();
    stepStart = System.nanoTime();
    rate = roomsPerSecond;
  }

  /** Rooms written since the generator started. */
  long written() {
    return written.get();
  }

  long failures() {
    return failures.get();
  }

  private void tick() {
    long target;
    synchronized (this) {
      target = stepBase + (long) (rate * (System.nanoTime() - stepStart) / 1e9);
    }
    long from = written.get();
    // At most one second's worth per statement: a generator that fell behind catches up in steps.
    long n = Math.min(target - from, Math.max(1, (long) rate));
    if (n <= 0) {
      return;
    }
    long to = from + n;
    long provisioning = everyTenth(to, 0) - everyTenth(from, 0);
    long stale = everyTenth(to, 1) - everyTenth(from, 1);
    long empty = n - provisioning - stale;
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(insert)) {
      ps.setLong(1, empty);
      ps.setLong(2, provisioning);
      ps.setLong(3, stale);
      ps.setLong(4, from);
      ps.executeUpdate();
      written.addAndGet(n);
    } catch (SQLException | RuntimeException e) {
      // Counted and reported; the next tick writes what this one could not.
      failures.incrementAndGet();
    }
  }

  /** How many of the room numbers {@code 0 .. n-1} are {@code residue} modulo 10. */
  private static long everyTenth(long n, int residue) {
    return n <= residue ? 0 : (n - residue + 9) / 10;
  }

  @Override
  public void close() throws InterruptedException {
    ticker.shutdownNow();
    ticker.awaitTermination(30, TimeUnit.SECONDS);
  }
}
