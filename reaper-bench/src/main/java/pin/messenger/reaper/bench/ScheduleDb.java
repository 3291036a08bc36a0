package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import pin.messenger.reaper.bench.SchedulePlan.Event;
import pin.messenger.reaper.bench.SchedulePlan.Room;

/**
 * The schedule section's databases: the plan written into them (as the generator's role), and what
 * they say afterwards (lateness from commit timestamps, the worker's statements and buffers from
 * pg_stat_statements).
 */
final class ScheduleDb {
  private ScheduleDb() {}

  /** The schema, 1,000 occupied live rooms, the table of due instants and pg_stat_statements. */
  static void prepare(HikariDataSource ds) throws SQLException {
    pin.messenger.reaper.schema.SchemaMigrations.migrate(ds);
    BenchData data = new BenchData(ds);
    data.liveRooms(1000);
    data.exec("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    data.exec(
        "CREATE TABLE bench_schedule (id uuid PRIMARY KEY, phase text NOT NULL, due_at timestamptz,"
            + " rejoined boolean NOT NULL DEFAULT false)");
    data.exec("VACUUM ANALYZE");
  }

  /**
   * The plan's occupied rooms, heart-beating now (stale-live ones are then dated by {@link
   * #staleDates} so that their window ends at their due instant).
   */
  static void occupiedRooms(HikariDataSource ds, List<Room> plan) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                INSERT INTO messenger.conference_sessions
                  (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at,
                   started_at, last_activity_at, updated_at, active_participant_count, peak_participant_count)
                VALUES (?, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video', 'Active',
                        gen_random_uuid(), now() - interval '5 minutes', now() - interval '5 minutes',
                        now(), now(), 2, 2)
                """)) {
      for (Room r : plan) {
        if (r.phase().equals("provision-timeout")) {
          continue;
        }
        ps.setObject(1, r.id());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  static void writeAll(List<HikariDataSource> pools, Event e) throws SQLException {
    for (HikariDataSource ds : pools) {
      write(ds, e);
    }
  }

  static void write(HikariDataSource ds, Event e) throws SQLException {
    String sql =
        switch (e.what()) {
          case "empty" ->
              """
              WITH u AS (UPDATE messenger.conference_sessions SET active_participant_count = 0,
                           last_activity_at = now(), updated_at = now() WHERE id = ? RETURNING id)
              INSERT INTO bench_schedule (id, phase, due_at) SELECT id, 'empty-room', now() + interval '90 seconds' FROM u
              """;
          case "rejoin" ->
              """
              WITH u AS (UPDATE messenger.conference_sessions SET active_participant_count = 1,
                           last_activity_at = now(), updated_at = now()
                          WHERE id = ? AND status = 'Active' RETURNING id)
              UPDATE bench_schedule SET rejoined = true, due_at = NULL WHERE id IN (SELECT id FROM u)
              """;
          default ->
              """
              WITH i AS (INSERT INTO messenger.conference_sessions
                           (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at,
                            last_activity_at, updated_at)
                         VALUES (?, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio',
                                 'Provisioning', gen_random_uuid(), now(), now(), now()) RETURNING id)
              INSERT INTO bench_schedule (id, phase, due_at) SELECT id, 'provision-timeout', now() + interval '2 minutes' FROM i
              """;
        };
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, e.room().id());
      ps.executeUpdate();
    }
  }

  /** Stale-live rooms: their last heartbeat dated one stale window before their due instant. */
  static void staleDates(HikariDataSource ds, List<Room> plan, Duration shift) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                WITH u AS (UPDATE messenger.conference_sessions SET last_activity_at = ?::timestamptz - interval '4 hours'
                            WHERE id = ? RETURNING id)
                INSERT INTO bench_schedule (id, phase, due_at) SELECT id, 'stale-live', ?::timestamptz FROM u
                """)) {
      for (Room r : plan) {
        if (r.phase().equals("stale-live")) {
          java.sql.Timestamp due = java.sql.Timestamp.from(r.due().plus(shift));
          ps.setTimestamp(1, due);
          ps.setObject(2, r.id());
          ps.setTimestamp(3, due);
          ps.addBatch();
        }
      }
      ps.executeBatch();
    }
  }

  /** The worker's statements and shared buffers so far, per database ({@code postgres} role). */
  static List<long[]> work(List<HikariDataSource> pools) throws SQLException {
    List<long[]> out = new ArrayList<>();
    for (HikariDataSource ds : pools) {
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT coalesce(sum(calls), 0), coalesce(sum(shared_blks_hit + shared_blks_read), 0)"
                      + " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database"
                      + " WHERE datname = current_database()) AND userid = 'postgres'::regrole")) {
        rs.next();
        out.add(new long[] {rs.getLong(1), rs.getLong(2)});
      }
    }
    return out;
  }

  static double[] lateness(HikariDataSource ds, String phase, Instant from, Instant to)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                WITH r AS (
                  SELECT s.status NOT IN ('Provisioning', 'Active') AS closed,
                         extract(epoch FROM pg_xact_commit_timestamp(s.xmin) - b.due_at) AS late
                    FROM bench_schedule b JOIN messenger.conference_sessions s USING (id)
                   WHERE b.phase = ? AND b.due_at >= ? AND b.due_at < ?)
                SELECT count(*), count(*) FILTER (WHERE closed),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY late) FILTER (WHERE closed),
                       percentile_cont(0.99) WITHIN GROUP (ORDER BY late) FILTER (WHERE closed),
                       max(late) FILTER (WHERE closed)
                  FROM r
                """)) {
      ps.setString(1, phase);
      ps.setObject(2, java.sql.Timestamp.from(from));
      ps.setObject(3, java.sql.Timestamp.from(to));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new double[] {
          rs.getLong(1), rs.getLong(2), rs.getDouble(3), rs.getDouble(4), rs.getDouble(5)
        };
      }
    }
  }

  static Charts.Series cdf(HikariDataSource ds, String name, Instant from, Instant to)
      throws SQLException {
    Charts.Series s = Charts.Series.of(name);
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                SELECT q, percentile_cont(q) WITHIN GROUP (ORDER BY
                         extract(epoch FROM pg_xact_commit_timestamp(s.xmin) - b.due_at))
                  FROM bench_schedule b JOIN messenger.conference_sessions s USING (id),
                       generate_series(0, 1, 0.02) AS q
                 WHERE b.due_at >= ? AND b.due_at < ? AND s.status NOT IN ('Provisioning', 'Active')
                 GROUP BY q ORDER BY q
                """)) {
      ps.setObject(1, java.sql.Timestamp.from(from));
      ps.setObject(2, java.sql.Timestamp.from(to));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          s = s.plus(rs.getDouble(2), rs.getDouble(1));
        }
      }
    }
    return s;
  }
}
