package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import pin.messenger.reaper.core.ClaimPosition;
import pin.messenger.reaper.core.ConferenceSession;
import pin.messenger.reaper.core.CycleOrigin;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;
import pin.messenger.reaper.core.Transition;

/**
 * One batch transaction over {@code messenger.conference_sessions} and its outboxes, with its
 * server-side limits. The work is in three classes along the batch's steps: {@link Claims} (claim
 * and skipped-locked count), {@link TransitionWriter} (the set-based write) and {@link
 * PoisonIsolation} (a data error isolated by halves, poison bookkeeping).
 */
final class PostgresBatch implements ReaperStore.Batch {

  static final String SET_LIMITS =
      """
      SELECT set_config('statement_timeout', ?, true),
             set_config('lock_timeout', ?, true),
             set_config('idle_in_transaction_session_timeout', ?, true)
      """;

  private final Connection connection;
  private final Claims claims;
  private final PoisonIsolation writes;
  private boolean committed;

  PostgresBatch(Connection connection, Duration statementTimeout, Duration idleTimeout)
      throws SQLException {
    this.connection = connection;
    this.claims = new Claims(connection);
    this.writes = new PoisonIsolation(connection, new TransitionWriter(connection));
    try (PreparedStatement ps = connection.prepareStatement(SET_LIMITS)) {
      ps.setString(1, statementTimeout.toMillis() + "ms");
      ps.setString(2, statementTimeout.toMillis() + "ms");
      ps.setString(3, idleTimeout.toMillis() + "ms");
      ps.executeQuery().close();
    }
  }

  @Override
  public List<ConferenceSession> claim(Phase phase, Instant cutoff, Instant asOf, int limit) {
    return claims.claim(phase, cutoff, asOf, limit);
  }

  @Override
  public int countSkippedLocked(
      Phase phase,
      Instant cutoff,
      Instant asOf,
      List<ConferenceSession> claimed,
      int limit,
      ClaimPosition after) {
    return claims.countSkippedLocked(phase, cutoff, asOf, claimed, limit, after);
  }

  @Override
  public ReaperStore.ApplyResult apply(
      List<Transition> transitions, CycleOrigin origin, Instant asOf) {
    return writes.apply(transitions, origin, asOf);
  }

  @Override
  public void recordFailures(
      Map<UUID, String> errors, Instant asOf, Duration retryBase, Duration retryCap) {
    writes.recordFailures(errors, asOf, retryBase, retryCap);
  }

  @Override
  public void commit() {
    try {
      connection.commit();
      committed = true;
    } catch (SQLException e) {
      throw new StoreException("commit failed: " + Jdbc.describe(e), e);
    }
  }

  @Override
  public void close() {
    if (committed) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // Already committed; nothing left to free.
      }
    } else {
      Jdbc.endQuietly(connection);
    }
  }
}
