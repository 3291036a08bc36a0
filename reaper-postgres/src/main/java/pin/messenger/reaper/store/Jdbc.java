package pin.messenger.reaper.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * JDBC helpers shared by the store's classes: parameter and column conversions, error
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
}
