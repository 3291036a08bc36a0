package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ClaimPosition;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleOrigin;
import pin.messenger.reaper.core.LockLostException;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;
import pin.messenger.reaper.core.Transition;

/**
 * One batch transaction over {@code messenger.conference_sessions} and its outboxes, with its
 * server-side limits. The work is in three classes along the batch's steps: {@link Claims} (claim
 * and skipped-locked count), {@link TransitionWriter} (the set-based write) and {@link
 * PoisonIsolation} (a data error isolated by halves, poison bookkeeping).
 *
 * <p>Round trips on the happy path: the limits, the run lock's check, the claim and its count in
 * one; the write with its savepoint, release and the lock's check again in one; the commit. A batch
 * with nothing to write: two, and a phase's first batch one more when it re-arms deadlines ({@link
 * Deadlines}). A drain's later batch that reads ahead ({@link DrainCursor}): two more, once per
 * {@link DrainCursor#PREFETCH_BATCHES} batches or more.
 */
final class PostgresBatch implements ReaperStore.Batch {

  static final String SET_LIMITS =
      """
      SELECT set_config('statement_timeout', ?, true),
             set_config('lock_timeout', ?, true),
             set_config('idle_in_transaction_session_timeout', ?, true)
      """;

  /** The batch's server-side limits, as {@link #SET_LIMITS} binds them. */
  record Limits(String statementTimeout, String lockTimeout, String idleTimeout) {
    static Limits of(Duration statementTimeout, Duration idleTimeout) {
      return new Limits(
          statementTimeout.toMillis() + "ms",
          statementTimeout.toMillis() + "ms",
          idleTimeout.toMillis() + "ms");
    }

    /** Binds the three parameters from {@code i}; returns the next index. */
    int bind(PreparedStatement ps, int i) throws SQLException {
      ps.setString(i, statementTimeout);
      ps.setString(i + 1, lockTimeout);
      ps.setString(i + 2, idleTimeout);
      return i + 3;
    }
  }

  private final Connection connection;
  private final Claims claims;
  private final PoisonIsolation writes;

  /** Not yet sent: they ride on the batch's first statement. */
  private @Nullable Limits pendingLimits;

  /**
   * Whether the run lock was found held by the batch's last statement, with nothing written since:
   * then the commit needs no check of its own.
   */
  private boolean lockCheckedSinceLastWrite;

  private boolean committed;

  /**
   * The run lock's holder, named in the checks that ride on the batch's statements; null before the
   * claim or for a lock that is not an {@link AdvisoryRunLock}.
   */
  private @Nullable Integer lockPid;

  /**
   * The store the batch belongs to: its phases' drain cursors and the outbox mode's rows; null: no
   * drain cursors (every claim reads its index range) and the relay's outbox.
   */
  private final @Nullable PostgresReaperStore store;

  PostgresBatch(
      Connection connection,
      Duration statementTimeout,
      Duration idleTimeout,
      @Nullable PostgresReaperStore store) {
    this.connection = connection;
    this.store = store;
    this.claims = new Claims(connection);
    this.pendingLimits = Limits.of(statementTimeout, idleTimeout);
    this.writes =
        new PoisonIsolation(
            connection,
            new TransitionWriter(connection, store == null ? null : store.debeziumRows()));
  }

  @Override
  public ReaperStore.Claim claim(
      ReaperStore.RunLock lock,
      Phase phase,
      Instant cutoff,
      Instant asOf,
      int limit,
      @Nullable ClaimPosition after) {
    lockPid = lock instanceof AdvisoryRunLock advisory ? advisory.pid() : null;
    List<UUID> cursorIds = null;
    if (store != null) {
      if (after == null) {
        store.forgetDrain(phase);
      } else {
        // A later batch of a drain: its candidates come from the read-ahead, not the index range.
        DrainCursor cursor = store.drainCursor(phase, asOf);
        if (!cursor.started()) {
          // The first batch's claim names no passed-over rows: they are the rows still claimable
          // up to its last position (the ones it claimed are closed by now).
          cursor.passedOver(
              prefetch(phase, cutoff, asOf, null, Claims.window(limit)).stream()
                  .filter(p -> DrainCursor.ORDER.compare(p, after) < 0)
                  .map(ClaimPosition::id)
                  .toList());
        }
        cursorIds =
            cursor.next(
                after,
                Claims.window(limit),
                DrainCursor.prefetchSize(limit),
                (from, n) -> prefetch(phase, cutoff, asOf, from, n));
      }
    }
    Claims.Result result =
        claims.claim(phase, cutoff, asOf, limit, after, lockPid, takeLimits(), cursorIds);
    if (store != null && result.runLockHeld()) {
      store.drainCursor(phase, asOf).passedOver(result.passedOver());
    }
    if (!result.runLockHeld()) {
      throw lockLost();
    }
    // Without a lock of ours to name (another store's lock), the commit checks it itself.
    lockCheckedSinceLastWrite = lockPid != null;
    return new ReaperStore.Claim(result.rows(), result.skippedLocked(), result.phasePaused());
  }

  private List<ClaimPosition> prefetch(
      Phase phase, Instant cutoff, Instant asOf, @Nullable ClaimPosition from, int n) {
    sendPendingLimits();
    return DrainCursor.prefetch(connection, phase, cutoff, asOf, from, n);
  }

  /**
   * Re-arms the deadlines of the phase's visited rows that are not due ({@link Deadlines#REARM}),
   * in this batch's transaction; empty-room has no deadline of its own.
   */
  @Override
  public int rearm(Phase phase, Instant asOf, ConferenceRoomReaperOptions options) {
    if (!PhaseRule.of(phase).byDeadline()) {
      return 0;
    }
    sendPendingLimits();
    lockCheckedSinceLastWrite = false;
    return Deadlines.rearm(connection, phase, asOf, options);
  }

  @Override
  public ReaperStore.ApplyResult apply(
      List<Transition> transitions, CycleOrigin origin, Instant asOf) {
    sendPendingLimits();
    lockCheckedSinceLastWrite = false;
    PoisonIsolation.Applied applied = writes.apply(transitions, origin, asOf, lockPid);
    if (Boolean.FALSE.equals(applied.runLockHeld())) {
      throw lockLost();
    }
    lockCheckedSinceLastWrite = Boolean.TRUE.equals(applied.runLockHeld());
    return applied.result();
  }

  @Override
  public void recordFailures(
      Map<UUID, String> errors, Instant asOf, Duration retryBase, Duration retryCap) {
    sendPendingLimits();
    lockCheckedSinceLastWrite = false;
    writes.recordFailures(errors, asOf, retryBase, retryCap);
  }

  @Override
  public void commit(ReaperStore.RunLock lock) {
    if (!lockCheckedSinceLastWrite) {
      lock.verifyHeld();
    }
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

  private static LockLostException lockLost() {
    return new LockLostException(
        "run lock lost (its TTL passed or its session was ended): no longer granted to its holder");
  }

  private @Nullable Limits takeLimits() {
    Limits limits = pendingLimits;
    pendingLimits = null;
    return limits;
  }

  private void sendPendingLimits() {
    Limits limits = takeLimits();
    if (limits == null) {
      return;
    }
    try (PreparedStatement ps = connection.prepareStatement(SET_LIMITS)) {
      limits.bind(ps, 1);
      ps.executeQuery().close();
    } catch (SQLException e) {
      throw new StoreException("setting the batch's limits failed: " + Jdbc.describe(e), e);
    }
  }
}
