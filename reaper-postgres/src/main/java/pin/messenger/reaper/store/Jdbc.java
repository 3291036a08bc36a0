package pin.messenger.reaper.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * JDBC helpers shared by the store's classes: parameter and column conversions, reading rows, error
 * classification, and ending a connection. No SQL text: each class owns the SQL of its table
 * access.
 */
final class Jdbc {
  private Jdbc() {}

  /**
   * Rolls back and returns a connection, ignoring failures of a connection that is already dead.
   */
  static void endQuietly(@Nullable Connection c) {
    if (c == null) {
      return;
    }
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // The connection may be gone (server ended it); the pool discards it on close.
    }
    try {
      c.close();
    } catch (SQLException ignored) {
      // Nothing more to free.
    }
  }

  /**
   * PostgreSQL error classes that mean "this row's data cannot be written", not "the database is
   * unwell".
   */
  static boolean isDataError(SQLException e) {
    String state = e.getSQLState();
    return state != null
        && (state.startsWith("22") // data exception
            || state.startsWith("23") // integrity constraint violation
            || state.startsWith("P0")); // raised by a trigger or function
  }

  /**
   * SQLState and the first line of the server message: no row contents (the DETAIL line may carry
   * values).
   */
  static String describe(SQLException e) {
    String message = String.valueOf(e.getMessage());
    int nl = message.indexOf('\n');
    if (nl >= 0) {
      message = message.substring(0, nl);
    }
    if (message.length() > 500) {
      message = message.substring(0, 500);
    }
    String described = "[" + e.getSQLState() + "] " + message;
    return preparedStatementsLost(e) ? described + POOLER_HINT : described;
  }

  /** What to do when a transaction-pooling proxy loses the driver's server-side statements. */
  static final String POOLER_HINT =
      " (the connection's prepared statements were not there: behind a transaction-pooling proxy"
          + " such as PgBouncer before 1.21, add prepareThreshold=0 to the JDBC URL; README,"
          + " 'Behind PgBouncer')";

  /**
   * The errors pgjdbc's server-side prepared statements give behind transaction pooling, where the
   * next transaction may run on another server session: "does not exist" (26000), "already exists"
   * (42P05), or a name that now belongs to another statement ("bind message supplies …", 08P01).
   */
  static boolean preparedStatementsLost(SQLException e) {
    String state = e.getSQLState();
    String message = String.valueOf(e.getMessage());
    return ("26000".equals(state) || "42P05".equals(state) || "08P01".equals(state))
        && message.contains("prepared statement");
  }

  static @Nullable OffsetDateTime ts(@Nullable Instant i) {
    return i == null ? null : OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }

  static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /** A timestamp column that is never null (NOT NULL in the table, or computed). */
  static Instant requiredInstant(ResultSet rs, String column) throws SQLException {
    return Objects.requireNonNull(instant(rs, column), column);
  }

  static UUID uuid(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, UUID.class);
  }

  static List<UUID> uuids(ResultSet rs, String column) throws SQLException {
    Array a = rs.getArray(column);
    if (a == null) {
      return List.of();
    }
    try {
      return Arrays.asList((UUID[]) a.getArray());
    } finally {
      a.free();
    }
  }

  static Array uuidArray(Connection c, List<UUID> values) throws SQLException {
    return c.createArrayOf("uuid", values.toArray());
  }

  static Array textArray(Connection c, List<String> values) throws SQLException {
    return c.createArrayOf("text", values.toArray());
  }

  static Array bigintArray(Connection c, List<Long> values) throws SQLException {
    return c.createArrayOf("bigint", values.toArray());
  }

  private static final tools.jackson.databind.json.JsonMapper JSON =
      tools.jackson.databind.json.JsonMapper.builder().build();

  /**
   * A jsonb array value as read by {@code getObject} (a {@code PGobject}, or its text) as a list;
   * empty for null or anything that is not an array.
   */
  static List<Object> jsonList(@Nullable Object value) {
    if (value == null) {
      return List.of();
    }
    String text =
        value instanceof org.postgresql.util.PGobject pg ? pg.getValue() : value.toString();
    if (text == null) {
      return List.of();
    }
    Object parsed = JSON.readValue(text, Object.class);
    if (parsed instanceof List<?> list) {
      return new java.util.ArrayList<>(list);
    }
    return List.of();
  }

  /**
   * Reads the result set's current row into a value: each answer record's own {@code read}, column
   * by column. Explicit rather than a reflective mapper: the store is plain JDBC by design (no
   * Spring, so no {@code DataClassRowMapper}), and a record's columns are then written where the
   * record is, checked by the compiler.
   */
  @FunctionalInterface
  interface RowReader<R> {
    R read(ResultSet rs) throws SQLException;
  }

  /** Every row of a query, each read by {@code reader}; {@code params} are bound in order. */
  static <R> List<R> list(Connection c, String sql, RowReader<R> reader, @Nullable Object... params)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      List<R> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(reader.read(rs));
        }
      }
      return out;
    }
  }

  /**
   * Every row of a query as a column map in the statement's column order, timestamps as {@link
   * Instant}: for answers whose columns are the table's own (explain's session row, the operator
   * documents).
   */
  static List<Map<String, Object>> rows(Connection c, String sql, @Nullable Object... params)
      throws SQLException {
    return list(c, sql, Jdbc::columns, params);
  }

  private static Map<String, Object> columns(ResultSet rs) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      Object v = rs.getObject(i);
      if (v instanceof Timestamp) {
        v = rs.getObject(i, OffsetDateTime.class).toInstant();
      }
      m.put(meta.getColumnLabel(i), v);
    }
    return m;
  }
}
