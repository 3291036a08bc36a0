package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.annotation.JsonNaming;

/**
 * {@code explain}'s question "does another transaction hold this conference's row now, and who?".
 * Takes the row lock only to find out, without waiting, and releases it at once.
 */
public final class RowLockProbe {

  static final String TRY_ROW_LOCK =
      "SELECT 1 FROM messenger.conference_sessions WHERE id = ? FOR UPDATE";

  static final String BLOCKERS =
      """
      SELECT a.pid, a.application_name, host(a.client_addr) AS client_addr, a.xact_start, a.state, left(a.query, 200) AS query
        FROM pg_stat_activity a WHERE a.pid = ANY(pg_blocking_pids(?))
      """;

  /** SQLSTATE lock_not_available: the lock timeout ran out while another transaction held it. */
  static final String LOCK_NOT_AVAILABLE = "55P03";

  /** The answer: {@link Checked} (free or held, and by whom) or {@link Unknown}. */
  public sealed interface RowLock permits Checked, Unknown {}

  /**
   * The lock was tried.
   *
   * @param heldBy the sessions the attempt waited for; empty when the row was free
   */
  public record Checked(boolean locked, List<Holder> heldBy) implements RowLock {}

  /**
   * The lock could not be tried (permission denied, a lost connection): said as what it is, never
   * as a lock.
   *
   * @param locked always null: unknown
   */
  public record Unknown(@Nullable Boolean locked, String error) implements RowLock {
    Unknown(String error) {
      this(null, error);
    }
  }

  /** A server session holding the row, from {@code pg_stat_activity}. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Holder(
      Integer pid,
      @Nullable String applicationName,
      @Nullable String clientAddr,
      @Nullable Instant xactStart,
      @Nullable String state,
      @Nullable String query) {
    static Holder read(ResultSet rs) throws SQLException {
      return new Holder(
          rs.getObject("pid", Integer.class),
          rs.getString("application_name"),
          rs.getString("client_addr"),
          Jdbc.instant(rs, "xact_start"),
          rs.getString("state"),
          rs.getString("query"));
    }
  }

  private final DataSource dataSource;

  public RowLockProbe(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Whether another transaction holds the row now, and who: one session waits briefly for the row
   * lock while a second asks the server whom it waits for. Both roll back; the waiting gives up
   * after 300 ms. Only a lock timeout means "locked": any other error (permission denied, a lost
   * connection) is reported as what it is, never as a lock. The waiting runs on a thread of its own
   * that is finished (its statement cancelled if need be) before the connections close.
   */
  public RowLock probe(UUID id) throws Exception {
    ExecutorService waiting =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "explain-row-lock");
              t.setDaemon(true);
              return t;
            });
    try (Connection waiter = dataSource.getConnection();
        Connection observer = dataSource.getConnection()) {
      waiter.setAutoCommit(false);
      int pid;
      try (Statement st = waiter.createStatement()) {
        st.execute("SET LOCAL lock_timeout = '300ms'");
        try (ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
          rs.next();
          pid = rs.getInt(1);
        }
      }
      PreparedStatement tryLock = waiter.prepareStatement(TRY_ROW_LOCK);
      tryLock.setObject(1, id);
      Future<Boolean> free =
          waiting.submit(
              () -> {
                try {
                  tryLock.executeQuery().close();
                  return true;
                } catch (SQLException e) {
                  if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    return false;
                  }
                  throw e;
                }
              });
      List<Holder> blockers = List.of();
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(250);
      while (!free.isDone() && System.nanoTime() < deadline) {
        blockers = Jdbc.list(observer, BLOCKERS, Holder::read, pid);
        if (!blockers.isEmpty()) {
          break;
        }
        Thread.sleep(20);
      }
      try {
        boolean wasFree = awaitOrCancel(free, tryLock);
        return new Checked(!wasFree, wasFree ? List.of() : blockers);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        return new Unknown("could not check the row lock: " + cause.getMessage());
      } finally {
        tryLock.close();
        waiter.rollback();
      }
    } finally {
      waiting.shutdownNow();
    }
  }

  /** The lock attempt's answer; if it does not come, its statement is cancelled and awaited. */
  private static boolean awaitOrCancel(Future<Boolean> free, PreparedStatement tryLock)
      throws Exception {
    try {
      return free.get(5, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      tryLock.cancel();
      return free.get(5, TimeUnit.SECONDS);
    }
  }
}
