package pin.messenger.reaper.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Writes conference rows the way the messenger's commands do, and reads back what the reaper did.
 */
public final class Rooms {
  private final DataSource dataSource;

  public Rooms(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** A room to insert; fields are public for brevity in tests. */
  public static final class Room {
    public UUID id = UUID.randomUUID();
    public UUID chatId = UUID.randomUUID();
    public UUID dealId = UUID.randomUUID();
    public UUID tenantId = UUID.randomUUID();
    public String mediaType = "Video";
    public String status = "Active";
    public UUID startedBy = UUID.randomUUID();
    public Instant createdAt;
    public Instant startedAt;
    public Instant lastActivityAt;
    public int activeParticipants;
    public int peakParticipants = 2;
    public String endReason;
  }

  /** Active, empty since {@code lastActivity}, started 10 minutes before that. */
  public static Room emptyActive(Instant lastActivity) {
    Room r = new Room();
    r.createdAt = lastActivity.minusSeconds(660);
    r.startedAt = lastActivity.minusSeconds(600);
    r.lastActivityAt = lastActivity;
    return r;
  }

  /** Active with people in it, last presence at {@code lastActivity}. */
  public static Room occupied(Instant lastActivity, int participants) {
    Room r = emptyActive(lastActivity);
    r.activeParticipants = participants;
    return r;
  }

  /** Provisioning since {@code createdAt}. */
  public static Room provisioning(Instant createdAt) {
    Room r = new Room();
    r.status = "Provisioning";
    r.createdAt = createdAt;
    r.lastActivityAt = createdAt;
    r.peakParticipants = 0;
    return r;
  }

  /** A terminal (history) row. */
  public static Room ended(Instant endedAt) {
    Room r = emptyActive(endedAt.minusSeconds(60));
    r.status = "Ended";
    r.endReason = "Completed";
    return r;
  }

  /** How long {@link #truncateAll()} waits for the tables' locks before it fails. */
  public static final java.time.Duration TRUNCATE_LOCK_TIMEOUT = java.time.Duration.ofSeconds(30);

  /**
   * Empties every table the reaper reads or writes (between tests of one class). TRUNCATE needs
   * every table's exclusive lock: a transaction an earlier test left open (a command's held row
   * lock whose connection was never closed because the test failed first) would make it wait
   * forever, and the build hang until CI's limit. So it waits {@link #TRUNCATE_LOCK_TIMEOUT} at
   * most, then fails naming the sessions still in a transaction.
   */
  public void truncateAll() {
    truncateAll(TRUNCATE_LOCK_TIMEOUT);
  }

  /** {@link #truncateAll()}, waiting at most {@code lockTimeout} for the tables' locks. */
  public void truncateAll(java.time.Duration lockTimeout) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.execute("SET LOCAL lock_timeout = " + Math.max(1, lockTimeout.toMillis()));
        st.execute(
            "TRUNCATE messenger.conference_sessions, messenger.conference_participants,"
                + " messenger.call_recordings, messenger.integration_outbox,"
                + " messenger.realtime_outbox, messenger.recorder_stop_requests,"
                + " messenger.conference_reaper_pauses, messenger.conference_reaper_audit,"
                + " messenger.conference_reaper_runners");
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        if (!"55P03".equals(e.getSQLState())) {
          throw e;
        }
        throw new IllegalStateException(
            "emptying the tables between tests: their locks are still held after "
                + lockTimeout.toMillis()
                + " ms; an earlier test left a transaction open: "
                + openTransactions(),
            e);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The other sessions of this database in a transaction: pid, state, since, last statement. */
  private String openTransactions() {
    return query(
            "SELECT pid, state, xact_start, left(query, 120) AS last_statement"
                + " FROM pg_stat_activity WHERE datname = current_database()"
                + " AND pid <> pg_backend_pid() AND xact_start IS NOT NULL")
        .toString();
  }

  public Room insert(Room r) {
    insertAll(List.of(r));
    return r;
  }

  /**
   * Inserts the rooms in one statement: each column goes as one array and the rows come from {@code
   * unnest}, so 60,000 rows of history cost one round trip and one plan instead of 60,000
   * executions of a batched insert (PostgreSQL's set-based pace, docs/benchmarks.md).
   */
  public void insertAll(List<Room> rooms) {
    if (rooms.isEmpty()) {
      return;
    }
    String sql =
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, end_reason, started_by_user_id, created_at,
           started_at, ended_at, last_activity_at, updated_at, active_participant_count, peak_participant_count)
        SELECT id, chat_id, deal_id, tenant_id, media_type, status, end_reason, started_by, created_at,
               started_at, CASE WHEN end_reason IS NULL THEN NULL ELSE last_activity_at END, last_activity_at,
               last_activity_at, active, peak
          FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::uuid[],
                      ?::timestamptz[], ?::timestamptz[], ?::timestamptz[], ?::int[], ?::int[])
            AS r(id, chat_id, deal_id, tenant_id, media_type, status, end_reason, started_by, created_at,
                 started_at, last_activity_at, active, peak)
        """;
    int n = rooms.size();
    String[][] text = new String[11][n];
    Integer[] active = new Integer[n];
    Integer[] peak = new Integer[n];
    for (int i = 0; i < n; i++) {
      Room r = rooms.get(i);
      text[0][i] = r.id.toString();
      text[1][i] = r.chatId.toString();
      text[2][i] = r.dealId.toString();
      text[3][i] = r.tenantId.toString();
      text[4][i] = r.mediaType;
      text[5][i] = r.status;
      text[6][i] = r.endReason;
      text[7][i] = r.startedBy.toString();
      text[8][i] = r.createdAt == null ? null : r.createdAt.toString();
      text[9][i] = r.startedAt == null ? null : r.startedAt.toString();
      text[10][i] = r.lastActivityAt == null ? null : r.lastActivityAt.toString();
      active[i] = r.activeParticipants;
      peak[i] = r.peakParticipants;
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int col = 0; col < text.length; col++) {
        ps.setArray(col + 1, c.createArrayOf("text", text[col]));
      }
      ps.setArray(12, c.createArrayOf("int4", active));
      ps.setArray(13, c.createArrayOf("int4", peak));
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public void join(UUID conferenceId, UUID userId, Instant at) {
    exec(
        "INSERT INTO messenger.conference_participants (conference_id, user_id, joined_at) VALUES (?, ?, ?)",
        conferenceId,
        userId,
        ts(at));
  }

  public UUID recording(UUID conferenceId, String status, Instant createdAt) {
    UUID id = UUID.randomUUID();
    exec(
        "INSERT INTO messenger.call_recordings (id, conference_id, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        id,
        conferenceId,
        status,
        ts(createdAt),
        ts(createdAt));
    return id;
  }

  /** The row as the reaper left it: column name → value. */
  public Map<String, Object> row(UUID id) {
    List<Map<String, Object>> rows =
        query("SELECT * FROM messenger.conference_sessions WHERE id = ?", id);
    return rows.isEmpty() ? null : rows.get(0);
  }

  public String status(UUID id) {
    return (String) row(id).get("status");
  }

  public long count(String sql, Object... params) {
    return ((Number) query(sql, params).get(0).values().iterator().next()).longValue();
  }

  // Written apart from Jdbc's row reader on purpose: the testkit checks product code
  // independently, so it must not reuse it.
  public List<Map<String, Object>> query(String sql, Object... params) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      List<Map<String, Object>> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          Map<String, Object> row = new HashMap<>();
          for (int i = 1; i <= n; i++) {
            Object v = rs.getObject(i);
            if (v instanceof java.sql.Timestamp || v instanceof OffsetDateTime) {
              v = rs.getObject(i, OffsetDateTime.class).toInstant();
            }
            row.put(rs.getMetaData().getColumnLabel(i), v);
          }
          out.add(row);
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public int exec(String sql, Object... params) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public static OffsetDateTime ts(Instant i) {
    return i == null ? null : OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }
}
