package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * The scale benchmark's table as the messenger leaves it (ended rooms of the past, occupied live
 * rooms), the messenger's presence heartbeat, and arming as the worker's first cycles do it. Setup
 * only: none of this is counted as the worker's work.
 */
final class ScaleTable {
  private ScaleTable() {}

  /**
   * An empty table and empty outbox tables (the bench runs no relay: the delivery gauges' count of
   * unpublished rows would grow from run to run), then {@code history} ended rooms of the past:
   * their marks (armed long ago, or never) are all in the past, which is what the table's
   * statistics then say of every mark.
   */
  static void history(DataSource db, long history) throws Exception {
    ScaleStatements.exec(
        db,
        "TRUNCATE messenger.conference_sessions, messenger.integration_outbox,"
            + " messenger.realtime_outbox, messenger.recorder_stop_requests");
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
  }

  /**
   * {@code n} occupied rooms, last active within the hour: nothing due in any phase. {@code
   * staleLive} null: never armed (the messenger inserted them; {@code -infinity}). Otherwise armed
   * as a worker running for a while leaves them: each mark is the room's activity when a cycle last
   * visited it, spread evenly over the last stale-live window (so marks reach their window at a
   * steady rate: the re-arms of a steady state), and the heartbeat has moved the activity on since
   * (never before the mark). Then VACUUM ANALYZE; returns the live rooms' ids.
   */
  static java.util.UUID[] live(DataSource db, long n, @Nullable Duration staleLive)
      throws Exception {
    String mark =
        staleLive == null
            ? "'-infinity'::timestamptz"
            : "now() - random() * %d * interval '1 second'".formatted(staleLive.toSeconds());
    String created = staleLive == null ? "t" : "m";
    ScaleStatements.exec(
        db,
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at,
           started_at, last_activity_at, updated_at, active_participant_count, peak_participant_count,
           reaper_window_start)
        SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video',
               'Active', gen_random_uuid(), %1$s - interval '1 hour', %1$s - interval '1 hour', t, t,
               2, 2, m
          FROM (SELECT m, greatest(m, now() - random() * interval '1 hour') AS t
                  FROM (SELECT %2$s AS m FROM generate_series(1, %3$d)) g) h
        """
            .formatted(created, mark, n));
    ScaleStatements.exec(db, "VACUUM ANALYZE messenger.conference_sessions");
    List<java.util.UUID> ids = new ArrayList<>();
    try (Connection c = db.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id FROM messenger.conference_sessions WHERE status = 'Active'")) {
      while (rs.next()) {
        ids.add(rs.getObject(1, java.util.UUID.class));
      }
    }
    return ids.toArray(java.util.UUID[]::new);
  }

  /** Re-arms until nothing is left to arm, as the first cycles would; returns the rows armed. */
  static int arm(DataSource db, Instant asOf, ConferenceRoomReaperOptions options) {
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

  static long micros(Duration d) {
    return d.getSeconds() * 1_000_000L + d.getNano() / 1_000;
  }

  /**
   * The messenger's presence heartbeat ({@link HeartbeatLoad#HEARTBEAT}) on random rooms of {@code
   * rooms} at a fixed rate, on one connection of its own, until closed; closing ends the
   * connection, so its backend has reported its counters when they are read.
   */
  static final class Heartbeat implements AutoCloseable {
    private final AtomicBoolean beating = new AtomicBoolean(true);
    private final AtomicLong beats = new AtomicLong();
    private final Thread thread;

    Heartbeat(DataSource db, java.util.UUID[] rooms, int perSecond) {
      thread = new Thread(() -> run(db, rooms, perSecond), "heartbeat");
      thread.start();
    }

    long beats() {
      return beats.get();
    }

    private void run(DataSource db, java.util.UUID[] rooms, int perSecond) {
      long interval = 1_000_000_000L / perSecond;
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

    @Override
    public void close() throws InterruptedException {
      beating.set(false);
      thread.join();
    }
  }

  /** The bench arms outside a cycle: no run lock to hold. */
  static final class Unlocked implements ReaperStore.RunLock {
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
