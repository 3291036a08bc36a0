package pin.messenger.reaper.delivery;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A short transaction whose every statement is bounded by a server-side {@code statement_timeout},
 * set locally so nothing is left on the pooled connection. A stalled database (a lock held
 * elsewhere, an overloaded server) fails the statement after the timeout instead of hanging the
 * delivery step.
 */
final class BoundedTransaction {

  static final String SET_STATEMENT_TIMEOUT = "SELECT set_config('statement_timeout', ?, true)";

  /** The work done inside the transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private BoundedTransaction() {}

  private static void restoreAutoCommit(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException e) {
      // A broken connection: the pool discards it; the statement's own error is the one to report.
    }
  }

  static <T> T run(DataSource dataSource, Duration statementTimeout, Work<T> work)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps = c.prepareStatement(SET_STATEMENT_TIMEOUT)) {
          ps.setString(1, statementTimeout.toMillis() + "ms");
          ps.execute();
        }
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException rollback) {
          e.addSuppressed(rollback);
        }
        throw e;
      } finally {
        restoreAutoCommit(c);
      }
    }
  }
}
