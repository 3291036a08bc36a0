package pin.messenger.reaper.app.metrics;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The pool as the background gauge reading sees it: a connection within {@link #BOUND} or a
 * failure. The pool's own connection-timeout (5 s by default) is right for a cycle, which would
 * rather wait out a brief reconnect; but the gauges decide readiness, and a reading that waited the
 * whole timeout on a database that refuses left readiness UP for the reading period plus that
 * timeout. With this bound, readiness is DOWN at most {@link DatabaseGauges#REFRESH} + {@link
 * #BOUND} after the database began refusing. Any other pool: its own timeout.
 */
public final class BoundedConnectionWait implements DataSource {
  /** The longest wait for a pooled connection, well under the 5 s reading period. */
  static final Duration BOUND = Duration.ofSeconds(1);

  private final DataSource pool;

  public BoundedConnectionWait(DataSource pool) {
    this.pool = pool;
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (pool.isWrapperFor(HikariDataSource.class)
        && pool.unwrap(HikariDataSource.class).getHikariPoolMXBean() instanceof HikariPool hikari) {
      return hikari.getConnection(BOUND.toMillis());
    }
    // Not started yet (or not Hikari): the pool's own wait.
    return pool.getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return pool.getConnection(username, password);
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return pool.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    pool.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    pool.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return pool.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return pool.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    return type.isInstance(this) ? type.cast(this) : pool.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return type.isInstance(this) || pool.isWrapperFor(type);
  }
}
