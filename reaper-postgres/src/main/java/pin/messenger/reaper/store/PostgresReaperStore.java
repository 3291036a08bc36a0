package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import javax.sql.DataSource;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.LockLostException;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;

/**
 * PostgreSQL implementation of the reaper's storage port. Plain JDBC over a pooled {@link
 * DataSource}; it owns the run lock and opens the batch transactions ({@link PostgresBatch}).
 */
public final class PostgresReaperStore implements ReaperStore {

  /**
   * Name hashed into the advisory-lock key. The bigint key is {@code hashtextextended(name, 0)},
   * computed by the server so that operators find the holder in {@code pg_locks} with the same
   * expression. A 64-bit hash of a name qualified by schema and job cannot plausibly collide with
   * another advisory-lock user of the database.
   */
  public static final String RUN_LOCK_NAME = "messenger.conference_room_reaper";

  /**
   * A transaction-level lock: it cannot be left behind on a pooled connection (commit, rollback or
   * a dead connection all free it). The same transaction sets {@code
   * idle_in_transaction_session_timeout} to the TTL, so a holder that hangs (never speaks again)
   * has its session ended, and so the lock freed, by the server alone.
   */
  static final String TRY_RUN_LOCK =
      """
      SELECT set_config('idle_in_transaction_session_timeout', ?, true),
             set_config('statement_timeout', ?, true),
             pg_try_advisory_xact_lock(hashtextextended(?, 0))
      """;

  /**
   * Heartbeat on the lock connection: fails when the server has ended the session (and so freed the
   * lock).
   */
  static final String VERIFY_RUN_LOCK = "SELECT 1";

  private static final Duration LOCK_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Due rows per phase over ix_conf_active (live rows only). A row due in two phases counts once in
   * the total; "due since" is when the row's window ended (reference time + window), so its age is
   * how late it is.
   */
  static final String BACKLOG =
      """
      SELECT count(*) FILTER (WHERE s.status = 'Active' AND s.active_participant_count = 0
                                AND s.last_activity_at <= ?) AS empty_due,
             min(s.last_activity_at) FILTER (WHERE s.status = 'Active' AND s.active_participant_count = 0
                                AND s.last_activity_at <= ?) AS empty_oldest,
             count(*) FILTER (WHERE s.status = 'Provisioning' AND s.created_at <= ?) AS provision_due,
             min(s.created_at) FILTER (WHERE s.status = 'Provisioning' AND s.created_at <= ?) AS provision_oldest,
             count(*) FILTER (WHERE s.status = 'Active' AND s.last_activity_at <= ?) AS stale_due,
             min(s.last_activity_at) FILTER (WHERE s.status = 'Active' AND s.last_activity_at <= ?) AS stale_oldest,
             count(*) FILTER (WHERE (s.status = 'Active' AND s.active_participant_count = 0 AND s.last_activity_at <= ?)
                                 OR (s.status = 'Provisioning' AND s.created_at <= ?)
                                 OR (s.status = 'Active' AND s.last_activity_at <= ?)) AS total_due
        FROM messenger.conference_sessions s
       WHERE s.status IN ('Provisioning', 'Active')
      """;

  private final DataSource dataSource;

  public PostgresReaperStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public RunLock tryAcquireRunLock(Duration ttl) {
    Connection c = null;
    try {
      c = dataSource.getConnection();
      c.setAutoCommit(false);
      boolean acquired;
      try (PreparedStatement ps = c.prepareStatement(TRY_RUN_LOCK)) {
        ps.setString(1, ttl.toMillis() + "ms");
        ps.setString(2, LOCK_STATEMENT_TIMEOUT.toMillis() + "ms");
        ps.setString(3, RUN_LOCK_NAME);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          acquired = rs.getBoolean(3);
        }
      }
      if (!acquired) {
        endQuietly(c);
        return new JdbcRunLock(null);
      }
      return new JdbcRunLock(c);
    } catch (SQLException e) {
      endQuietly(c);
      throw new StoreException("could not try the run lock: " + Sql.describe(e), e);
    }
  }

  @Override
  public Backlog backlog(Instant asOf, ConferenceRoomReaperOptions options) {
    Instant empty = Phase.EMPTY_ROOM.cutoff(asOf, options);
    Instant provision = Phase.PROVISION_TIMEOUT.cutoff(asOf, options);
    Instant stale = Phase.STALE_LIVE.cutoff(asOf, options);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(BACKLOG)) {
      Instant[] params = {
        empty, empty, provision, provision, stale, stale, empty, provision, stale
      };
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, Sql.ts(params[i]));
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Map<Phase, Backlog.PhaseBacklog> phases = new EnumMap<>(Phase.class);
        phases.put(Phase.EMPTY_ROOM, phase(rs, "empty", options.emptyRoomGrace()));
        phases.put(Phase.PROVISION_TIMEOUT, phase(rs, "provision", options.provisionTimeout()));
        phases.put(Phase.STALE_LIVE, phase(rs, "stale", options.staleLiveTimeout()));
        return new Backlog(asOf, phases, rs.getLong("total_due"));
      }
    } catch (SQLException e) {
      throw new StoreException("reading the backlog failed: " + Sql.describe(e), e);
    }
  }

  private static Backlog.PhaseBacklog phase(ResultSet rs, String prefix, Duration window)
      throws SQLException {
    Instant oldest = Sql.instant(rs, prefix + "_oldest");
    return new Backlog.PhaseBacklog(
        rs.getLong(prefix + "_due"), oldest == null ? null : oldest.plus(window));
  }

  @Override
  public Batch beginBatch(Duration statementTimeout, Duration idleTimeout) {
    Connection c = null;
    try {
      c = dataSource.getConnection();
      c.setAutoCommit(false);
      return new PostgresBatch(c, statementTimeout, idleTimeout);
    } catch (SQLException e) {
      endQuietly(c);
      throw new StoreException("could not begin a batch: " + Sql.describe(e), e);
    }
  }

  /**
   * Rolls back and returns a connection, ignoring failures of a connection that is already dead.
   */
  static void endQuietly(Connection c) {
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

  private static final class JdbcRunLock implements RunLock {
    private final Connection connection;

    JdbcRunLock(Connection connection) {
      this.connection = connection;
    }

    @Override
    public boolean acquired() {
      return connection != null;
    }

    @Override
    public void verifyHeld() {
      if (connection == null) {
        throw new IllegalStateException("run lock was not acquired");
      }
      try (PreparedStatement ps = connection.prepareStatement(VERIFY_RUN_LOCK)) {
        ps.executeQuery().close();
      } catch (SQLException e) {
        throw new LockLostException(
            "run lock lost (its TTL passed or its connection was ended): " + Sql.describe(e), e);
      }
    }

    @Override
    public void close() {
      if (connection == null) {
        return;
      }
      // Ending the lock's transaction frees the transaction-level advisory lock. If it cannot be
      // ended, the server
      // has already ended the session (TTL passed, backend terminated): the lock was lost before
      // the cycle ended.
      try {
        connection.rollback();
      } catch (SQLException e) {
        org.slf4j.LoggerFactory.getLogger(PostgresReaperStore.class)
            .atWarn()
            .addKeyValue("reason", Sql.describe(e))
            .log(
                "run lock was lost before the cycle ended (its TTL passed or its session was ended)");
      }
      endQuietly(connection);
    }
  }
}
