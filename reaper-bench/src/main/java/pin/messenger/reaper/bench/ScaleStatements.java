package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;

/**
 * What {@link ScaleBench} measures with: the idle statements of the design before deadlines (each
 * reads every live room), and the database's own accounting of statements ({@code
 * pg_stat_statements}) and of the table ({@code pg_stat_user_tables}).
 */
final class ScaleStatements {

  /**
   * The stale-live claim's candidates before deadlines: every Active row through ix_conf_active,
   * its last activity read from the table. (The claim's lock step and count read only what this
   * returns: nothing when idle.) Parameters: cutoff, asOf, window.
   */
  static final String OLD_STALE_LIVE_CANDIDATES =
      """
      SELECT s.id, s.last_activity_at AS ref
        FROM messenger.conference_sessions s
       WHERE s.status = 'Active' AND s.last_activity_at <= ?
         AND (s.reaper_next_attempt_at IS NULL OR s.reaper_next_attempt_at <= ?)
       ORDER BY s.last_activity_at, s.id
       LIMIT ?
      """;

  /**
   * The next-due read before deadlines: each phase's minimum due time over every live row.
   * Parameters: the three windows in microseconds.
   */
  static final String OLD_DUE_TIMES =
      """
      SELECT min(greatest(s.last_activity_at + ? * interval '1 microsecond', s.reaper_next_attempt_at))
               FILTER (WHERE s.status = 'Active' AND s.active_participant_count <= 0),
             min(greatest(s.created_at + ? * interval '1 microsecond', s.reaper_next_attempt_at))
               FILTER (WHERE s.status = 'Provisioning'),
             min(greatest(s.last_activity_at + ? * interval '1 microsecond', s.reaper_next_attempt_at))
               FILTER (WHERE s.status = 'Active'),
             clock_timestamp()
        FROM messenger.conference_sessions s
       WHERE s.status IN ('Provisioning', 'Active')
      """;

  /** The backlog gauges' counts before deadlines, over every live row. Parameters: cutoffs. */
  static final String OLD_BACKLOG =
      """
      SELECT count(*) FILTER (WHERE s.status = 'Active' AND s.active_participant_count <= 0
                                AND s.last_activity_at <= ?),
             count(*) FILTER (WHERE s.status = 'Provisioning' AND s.created_at <= ?),
             count(*) FILTER (WHERE s.status = 'Active' AND s.last_activity_at <= ?)
        FROM messenger.conference_sessions s
       WHERE s.status IN ('Provisioning', 'Active')
      """;

  /** One window of pg_stat_statements: buffers and execution time, over the worker's statements. */
  record Work(long buffers, double execMs, List<String> top) {}

  private ScaleStatements() {}

  /** The three phases' windows in microseconds: empty-room, provision-timeout, stale-live. */
  static long[] windows(ConferenceRoomReaperOptions options) {
    return new long[] {
      ScaleTable.micros(Phase.EMPTY_ROOM.window(options)),
      ScaleTable.micros(Phase.PROVISION_TIMEOUT.window(options)),
      ScaleTable.micros(Phase.STALE_LIVE.window(options))
    };
  }

  static void oldIdle(DataSource db, Instant asOf, long[] windowsMicros) throws SQLException {
    try (Connection c = db.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(OLD_STALE_LIVE_CANDIDATES)) {
        ps.setObject(1, Floors.ts(asOf.minusNanos(windowsMicros[2] * 1000)));
        ps.setObject(2, Floors.ts(asOf));
        ps.setInt(3, 200);
        ps.executeQuery().close();
      }
      try (PreparedStatement ps = c.prepareStatement(OLD_DUE_TIMES)) {
        for (int i = 0; i < 3; i++) {
          ps.setLong(i + 1, windowsMicros[i]);
        }
        ps.executeQuery().close();
      }
      try (PreparedStatement ps = c.prepareStatement(OLD_BACKLOG)) {
        for (int i = 0; i < 3; i++) {
          ps.setObject(i + 1, Floors.ts(asOf.minusNanos(windowsMicros[i] * 1000)));
        }
        ps.executeQuery().close();
      }
    }
  }

  static void reset(DataSource db) throws SQLException {
    exec(db, "SELECT pg_stat_statements_reset()");
  }

  /**
   * Everything pg_stat_statements counted in this database since {@link #reset}, except the
   * heartbeat and the bench's own bookkeeping.
   */
  static Work work(DataSource db) throws SQLException {
    String where =
        " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname ="
            + " current_database()) AND query NOT LIKE '%last_activity_at = now()%'"
            + " AND query NOT LIKE '%pg_stat%' AND query NOT LIKE '%VACUUM%'";
    try (Connection c = db.getConnection();
        Statement st = c.createStatement()) {
      long buffers;
      double ms;
      try (ResultSet rs =
          st.executeQuery(
              "SELECT coalesce(sum(shared_blks_hit + shared_blks_read), 0),"
                  + " coalesce(sum(total_exec_time), 0)"
                  + where)) {
        rs.next();
        buffers = rs.getLong(1);
        ms = rs.getDouble(2);
      }
      List<String> top = new ArrayList<>();
      try (ResultSet rs =
          st.executeQuery(
              "SELECT shared_blks_hit + shared_blks_read, calls,"
                  + " regexp_replace(left(query, 70), '\\s+', ' ', 'g')"
                  + where
                  + " ORDER BY 1 DESC LIMIT 4")) {
        while (rs.next()) {
          top.add(rs.getLong(1) + " buffers / " + rs.getLong(2) + " calls: " + rs.getString(3));
        }
      }
      return new Work(buffers, ms, top);
    }
  }

  /** What pg_stat_statements counted for some statements: calls, rows, buffers, execution ms. */
  record Part(long calls, long rows, long buffers, double execMs) {
    double buffersPerCall() {
      return calls == 0 ? 0 : (double) buffers / calls;
    }

    double msPerCall() {
      return calls == 0 ? 0 : execMs / calls;
    }
  }

  /** The statements of this database whose text is {@code LIKE like}, since {@link #reset}. */
  static Part part(DataSource db, String like) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT coalesce(sum(calls), 0), coalesce(sum(rows), 0),"
                    + " coalesce(sum(shared_blks_hit + shared_blks_read), 0),"
                    + " coalesce(sum(total_exec_time), 0) FROM pg_stat_statements"
                    + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname ="
                    + " current_database()) AND query LIKE ?")) {
      ps.setString(1, like);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Part(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getDouble(4));
      }
    }
  }

  /** {@code {n_tup_upd, n_tup_hot_upd}} of conference_sessions. */
  static long[] updates(DataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
                    + " WHERE relid = 'messenger.conference_sessions'::regclass")) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  static String walLsn(DataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * WAL written between two positions: {@code {all bytes, bytes of full-page images}} ({@code
   * pg_walinspect}). Full-page images depend on when the last checkpoint was, not on the design.
   */
  static long[] wal(DataSource db, String from, String to) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT ?::pg_lsn - ?::pg_lsn, coalesce(sum(fpi_length), 0)"
                    + " FROM pg_get_wal_records_info(?::pg_lsn, ?::pg_lsn)")) {
      ps.setString(1, to);
      ps.setString(2, from);
      ps.setString(3, from);
      ps.setString(4, to);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }

  static void exec(DataSource db, String sql) throws SQLException {
    try (Connection c = db.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
