package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Request;
import pin.messenger.reaper.store.OperatorActions.Result;

/**
 * The one shape of every operator action: a transaction under {@link #LIMITS} that first locks and
 * reads the rows it is about to change (the plan), changes nothing when nothing matched or when
 * several did and the request is not confirmed, else changes exactly those rows — its row count
 * checked — and writes the audit row ({@link AuditTrail}) before it commits.
 */
final class ActionTransaction {
  /** Every statement of an action is bounded; a row held by a cycle is not waited for long. */
  static final String LIMITS =
      "SELECT set_config('statement_timeout', '10s', true), set_config('lock_timeout', '5s', true)";

  private ActionTransaction() {}

  /** Locks and reads the rows the action is about to change: its plan. */
  @FunctionalInterface
  interface Select {
    List<Map<String, Object>> rows(Connection c) throws SQLException;
  }

  /** Changes exactly the planned rows and returns how many it changed. */
  @FunctionalInterface
  interface Change {
    int apply(Connection c, List<Map<String, Object>> rows) throws SQLException;
  }

  /** Runs one action; {@code nothing} is the message when nothing matched (null: none). */
  static Outcome run(
      DataSource dataSource,
      Request request,
      Select select,
      Change change,
      @Nullable String nothing)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (Statement st = c.createStatement()) {
          st.executeQuery(LIMITS).close();
        }
        List<Map<String, Object>> rows = select.rows(c);
        if (rows.isEmpty()) {
          c.rollback();
          return new Outcome(Result.NOTHING, rows, null, nothing);
        }
        if (rows.size() > 1 && !request.confirmed()) {
          c.rollback();
          return new Outcome(Result.PLAN_ONLY, rows, null, null);
        }
        int changed = change.apply(c, rows);
        if (changed != rows.size()) {
          // The rows are locked since the select: a different count is a bug, never a race.
          throw new IllegalStateException(
              request.action() + " changed " + changed + " rows, expected " + rows.size());
        }
        long auditId = AuditTrail.write(c, request, rows);
        c.commit();
        return new Outcome(Result.APPLIED, rows, auditId, null);
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  static int update(Connection c, String sql, Object array) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, array);
      return count(ps);
    }
  }

  static int count(PreparedStatement ps) throws SQLException {
    int n = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        n++;
      }
    }
    return n;
  }

  static List<UUID> ids(List<Map<String, Object>> rows) {
    List<UUID> out = new ArrayList<>(rows.size());
    for (Map<String, Object> r : rows) {
      out.add((UUID) r.get("id"));
    }
    return out;
  }
}
