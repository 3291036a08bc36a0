package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.LockLostException;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;

/**
 * The single-runner lock: a transaction-level advisory lock held by an open transaction on a
 * connection of its own for the whole cycle. It cannot be left behind on a pooled connection
 * (commit, rollback or a dead connection all free it), and its TTL is the server's: the same
 * transaction sets {@code idle_in_transaction_session_timeout}, so a holder that hangs (never
 * speaks again) has its session ended, and so the lock freed, by the server alone.
 */
final class AdvisoryRunLock implements ReaperStore.RunLock {
  private static final Logger log = LoggerFactory.getLogger(AdvisoryRunLock.class);

  /**
   * Name hashed into the advisory-lock key. The bigint key is {@code hashtextextended(name, 0)},
   * computed by the server so that operators find the holder in {@code pg_locks} with the same
   * expression. A 64-bit hash of a name qualified by schema and job cannot plausibly collide with
   * another advisory-lock user of the database.
   */
  static final String NAME = "messenger.conference_room_reaper";

  /**
   * Takes the lock without waiting, with the TTL and a statement limit, and reads the operators'
   * pauses in the same round trip ({@link Pauses#AS_JSON}), with the holder's backend pid (what the
   * batches' {@link #HELD_BY} check names). When the lock is taken, the same round trip finds which
   * phases have work at the cycle's moment ({@link DueReads#HAS_WORK}: index probes); a runner that
   * did not get the lock does not read them ({@code CASE} evaluates its subqueries only when
   * reached). Parameters: ttl, limit, name, then {@link DueReads#bindHasWork}'s.
   */
  static final String TRY_LOCK =
      """
      WITH attempt AS MATERIALIZED (
        SELECT set_config('idle_in_transaction_session_timeout', ?, true) AS ttl,
               set_config('statement_timeout', ?, true) AS statement_limit,
               pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS acquired,
               %s AS pauses,
               pg_backend_pid() AS pid
      )
      SELECT a.acquired, a.pauses, a.pid,
             %s
        FROM attempt a
      """
          .formatted(Pauses.AS_JSON, DueReads.hasWork("a.acquired"));

  /**
   * Whether the lock is still granted to its holder's backend, asked from any other session: the
   * check a batch sends along with its own statements instead of a round trip on the lock's
   * connection. The lock is transaction-scoped and its transaction stays open until {@link #close},
   * so it is lost exactly when that backend's session ends (TTL passed, backend terminated) — and
   * then it is no longer granted to that pid. The same key expression as {@link #TRY_LOCK}; {@code
   * objsubid = 1} marks a single-bigint key. A boolean SQL expression; parameters: pid, name.
   */
  static final String HELD_BY =
      """
      EXISTS (SELECT 1 FROM pg_locks l
               WHERE l.locktype = 'advisory' AND l.granted AND l.pid = ?::int AND l.objsubid = 1
                 AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(?, 0))""";

  /** Heartbeat: fails when the server has ended the session (and so freed the lock). */
  static final String VERIFY_HELD = "SELECT 1";

  /** Who holds the lock now (for {@code status}); the same key expression as {@link #TRY_LOCK}. */
  static final String HOLDER =
      """
      SELECT a.pid, a.application_name, host(a.client_addr) AS client_addr, a.xact_start, a.state,
             a.state_change
        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted
         AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(?, 0)
      """;

  private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  /** The lock's open transaction, or null when another runner held the lock. */
  private final @Nullable Connection connection;

  private final PauseState pauses;

  /** The holder's backend pid (0 when not acquired). */
  private final int pid;

  /** The phases the lock's round trip found without work at the cycle's moment. */
  private final Set<Phase> nothingDue;

  private AdvisoryRunLock(
      @Nullable Connection connection, PauseState pauses, int pid, Set<Phase> nothingDue) {
    this.connection = connection;
    this.pauses = pauses;
    this.pid = pid;
    this.nothingDue = nothingDue;
  }

  /**
   * Tries the lock once for a cycle at {@code asOf}; the handle says whether it was acquired and,
   * if so, which phases have nothing due.
   */
  static AdvisoryRunLock tryAcquire(
      DataSource dataSource, Duration ttl, Instant asOf, ConferenceRoomReaperOptions options) {
    Connection c = null;
    try {
      c = dataSource.getConnection();
      c.setAutoCommit(false);
      boolean acquired;
      PauseState pauses;
      int pid;
      Set<Phase> nothingDue = EnumSet.noneOf(Phase.class);
      try (PreparedStatement ps = c.prepareStatement(TRY_LOCK)) {
        ps.setString(1, ttl.toMillis() + "ms");
        ps.setString(2, STATEMENT_TIMEOUT.toMillis() + "ms");
        ps.setString(3, NAME);
        DueReads.bindHasWork(ps, 4, asOf, options);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          acquired = rs.getBoolean("acquired");
          pauses = Pauses.decode(rs.getString("pauses"));
          pid = rs.getInt("pid");
          for (Phase phase : Phase.values()) {
            // False, not null: the phase was read and has nothing due.
            if (Boolean.FALSE.equals(rs.getObject(DueReads.alias(phase) + "_has_work"))) {
              nothingDue.add(phase);
            }
          }
        }
      }
      if (!acquired) {
        Jdbc.endQuietly(c);
        return new AdvisoryRunLock(null, pauses, 0, Set.of());
      }
      return new AdvisoryRunLock(c, pauses, pid, Collections.unmodifiableSet(nothingDue));
    } catch (SQLException e) {
      Jdbc.endQuietly(c);
      throw new StoreException("could not try the run lock: " + Jdbc.describe(e), e);
    }
  }

  @Override
  public boolean acquired() {
    return connection != null;
  }

  /** The backend pid that holds the lock, for {@link #HELD_BY}; only for an acquired lock. */
  int pid() {
    if (connection == null) {
      throw new IllegalStateException("run lock was not acquired");
    }
    return pid;
  }

  @Override
  public PauseState pauses() {
    return pauses;
  }

  @Override
  public boolean nothingDue(Phase phase) {
    return nothingDue.contains(phase);
  }

  @Override
  public void verifyHeld() {
    if (connection == null) {
      throw new IllegalStateException("run lock was not acquired");
    }
    try (PreparedStatement ps = connection.prepareStatement(VERIFY_HELD)) {
      ps.executeQuery().close();
    } catch (SQLException e) {
      throw new LockLostException(
          "run lock lost (its TTL passed or its connection was ended): " + Jdbc.describe(e), e);
    }
  }

  @Override
  public void close() {
    if (connection == null) {
      return;
    }
    // Ending the lock's transaction frees the lock. If it cannot be ended, the server has already
    // ended the session (TTL passed, backend terminated): the lock was lost before the cycle ended.
    try {
      connection.rollback();
    } catch (SQLException e) {
      log.atWarn()
          .addKeyValue("reason", Jdbc.describe(e))
          .log(
              "run lock was lost before the cycle ended (its TTL passed or its session was ended)");
    }
    try {
      connection.close();
    } catch (SQLException ignored) {
      // Rolled back or gone: nothing more to free (the pool discards a broken connection).
    }
  }
}
