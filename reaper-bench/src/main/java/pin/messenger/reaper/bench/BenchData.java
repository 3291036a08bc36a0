package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Set-based data generation for the benchmark (generate_series): history, live rooms, a due
 * backlog.
 */
final class BenchData {
  private final DataSource dataSource;

  /** The JDBC URL of a pool made by {@link #pool}. */
  static String url(DataSource pool) {
    String url =
        pool instanceof com.zaxxer.hikari.HikariDataSource h ? h.getJdbcUrl() : (String) null;
    if (url == null) {
      throw new IllegalArgumentException("not a pool with a JDBC URL: " + pool);
    }
    return url;
  }

  /** A small pool on {@code url}. */
  static com.zaxxer.hikari.HikariDataSource pool(String url, int size) {
    com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource();
    ds.setJdbcUrl(url);
    ds.setMaximumPoolSize(size);
    return ds;
  }

  /**
   * A fresh embedded PostgreSQL in a temporary folder named after {@code prefix}, with the server
   * settings given as name, value pairs.
   */
  static io.zonky.test.db.postgres.embedded.EmbeddedPostgres server(
      String prefix, String... settings) throws java.io.IOException {
    var builder =
        io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
            .setDataDirectory(java.nio.file.Files.createTempDirectory(prefix))
            .setCleanDataDirectory(true);
    for (int i = 0; i + 1 < settings.length; i += 2) {
      builder.setServerConfig(settings[i], settings[i + 1]);
    }
    return builder.start();
  }

  BenchData(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  long count(String where) throws SQLException {
    return scalar("SELECT count(*) FROM messenger.conference_sessions WHERE " + where);
  }

  /** The first column of the first row of a query that returns one number. */
  long scalar(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  void exec(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** Grows the terminal history to {@code total} rows (Ended/Completed, days old). */
  void history(long total) throws SQLException {
    long have = count("status IN ('Ended', 'Failed')");
    long step = 1_000_000;
    while (have < total) {
      long n = Math.min(step, total - have);
      exec(
          """
          INSERT INTO messenger.conference_sessions
            (id, chat_id, deal_id, tenant_id, media_type, status, end_reason, started_by_user_id, created_at,
             started_at, ended_at, last_activity_at, updated_at, active_participant_count, peak_participant_count,
             duration_seconds)
          SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video', 'Ended',
                 'Completed', gen_random_uuid(), t - interval '1 hour', t - interval '50 minutes', t, t, t, 0, 3, 3000
            FROM (SELECT now() - (i %% 900000) * interval '1 minute' - interval '2 days' AS t
                    FROM generate_series(1, %d) AS i) g
          """
              .formatted(n));
      have += n;
    }
    exec("VACUUM ANALYZE messenger.conference_sessions");
    // Write the bulk load's dirty pages out now: otherwise the next measurement runs during that
    // checkpoint's
    // disk writes and measures them, not the query.
    exec("CHECKPOINT");
  }

  /** {@code n} occupied, recently active rooms: live but not due in any phase. */
  void liveRooms(int n) throws SQLException {
    exec(
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at, started_at,
           last_activity_at, updated_at, active_participant_count, peak_participant_count)
        SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio', 'Active',
               gen_random_uuid(), now() - interval '20 minutes', now() - interval '19 minutes',
               now() + interval '1 hour', now(), 2, 3
          FROM generate_series(1, %d)
        """
            .formatted(n));
  }

  /**
   * Replaces the backlog: {@code n} due empty rooms (3 roster rows each, every 10th with a live
   * recording); the rows closed by the previous run and their outbox rows are removed first, so
   * each run starts from the same state.
   */
  void backlog(int n) throws SQLException {
    exec("CREATE TABLE IF NOT EXISTS bench_backlog (id uuid, chat_id uuid, i int)");
    exec("DELETE FROM messenger.conference_sessions WHERE id IN (SELECT id FROM bench_backlog)");
    exec(
        "TRUNCATE messenger.integration_outbox, messenger.realtime_outbox, messenger.recorder_stop_requests,"
            + " messenger.conference_participants, messenger.call_recordings");
    exec("DROP TABLE IF EXISTS bench_backlog");
    exec(
        """
        CREATE TABLE bench_backlog AS
        SELECT gen_random_uuid() AS id, gen_random_uuid() AS chat_id, i
          FROM generate_series(1, %d) AS i
        """
            .formatted(n));
    for (String sql : fill("bench_backlog")) {
      exec(sql);
    }
    exec("VACUUM ANALYZE messenger.conference_sessions");
    exec("ANALYZE messenger.conference_participants");
    exec("ANALYZE messenger.call_recordings");
  }

  /**
   * The same backlog as {@link #backlog} for a database a worker is reaping: the statements of one
   * transaction (the rooms become due with their rosters and recordings at its commit), without
   * removing anything first.
   */
  static List<String> backlogInOneTransaction(int n) {
    List<String> sql = new ArrayList<>();
    sql.add(
        """
        CREATE TEMP TABLE next_backlog ON COMMIT DROP AS
        SELECT gen_random_uuid() AS id, gen_random_uuid() AS chat_id, i
          FROM generate_series(1, %d) AS i
        """
            .formatted(n));
    sql.addAll(fill("next_backlog"));
    return sql;
  }

  /**
   * {@code n} due rooms in each of the other two phases, for a default cycle: provisioning past its
   * timeout, and live rooms whose last activity is older than the stale timeout.
   */
  static List<String> provisionAndStaleDue(int n) {
    return List.of(
        """
        INSERT INTO messenger.conference_sessions (id, chat_id, deal_id, tenant_id, media_type, status,
          started_by_user_id, created_at, last_activity_at, updated_at)
        SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio', 'Provisioning',
               gen_random_uuid(), now() - interval '10 minutes', now() - interval '10 minutes', now()
          FROM generate_series(1, %d)"""
            .formatted(n),
        """
        INSERT INTO messenger.conference_sessions (id, chat_id, deal_id, tenant_id, media_type, status,
          started_by_user_id, created_at, started_at, last_activity_at, updated_at, active_participant_count)
        SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio', 'Active',
               gen_random_uuid(), now() - interval '6 hours', now() - interval '6 hours', now() - interval '5 hours',
               now(), 2
          FROM generate_series(1, %d)"""
            .formatted(n));
  }

  /**
   * The backlog's rooms (due empty rooms), 3 roster rows each and a live recording for every 10th,
   * for the ids in {@code table}.
   */
  private static List<String> fill(String table) {
    return List.of(
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at, started_at,
           last_activity_at, updated_at, active_participant_count, peak_participant_count)
        SELECT b.id, b.chat_id, gen_random_uuid(), gen_random_uuid(), 'Video', 'Active', gen_random_uuid(),
               now() - interval '2 hours', now() - interval '110 minutes',
               now() - interval '10 minutes' - b.i * interval '1 millisecond', now(), 0, 3
          FROM %s b
        """
            .formatted(table),
        """
        INSERT INTO messenger.conference_participants (conference_id, user_id, joined_at, left_at)
        SELECT b.id, gen_random_uuid(), now() - interval '100 minutes', now() - interval '10 minutes'
          FROM %s b, generate_series(1, 3)
        """
            .formatted(table),
        """
        INSERT INTO messenger.call_recordings (id, conference_id, status, created_at, updated_at)
        SELECT gen_random_uuid(), b.id, 'Recording', now() - interval '100 minutes', now()
          FROM %s b WHERE b.i %% 10 = 0
        """
            .formatted(table));
  }
}
