package pin.messenger.reaper.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The reaper's storage port. The PostgreSQL implementation lives in {@code
 * pin.messenger.reaper.store}; the core only sees these operations. Every method may throw {@link
 * StoreException} for an infrastructure failure.
 */
public interface ReaperStore {

  /**
   * Tries, without waiting, to take the single-runner lock. The lock must be freed by the server
   * itself after {@code ttl} even if the holder hangs, and must never outlive the returned handle
   * on a pooled connection. A store may read in the same round trip which phases have nothing due
   * at the cycle's moment {@code asOf} ({@link RunLock#nothingDue}).
   */
  RunLock tryAcquireRunLock(Duration ttl, Instant asOf, ConferenceRoomReaperOptions options);

  /**
   * Opens one batch transaction with server-side limits: {@code statementTimeout} per statement,
   * and {@code idleTimeout} after which the server ends a transaction whose client went silent
   * (freeing its row locks).
   */
  Batch beginBatch(Duration statementTimeout, Duration idleTimeout);

  /**
   * Live rows past their window at {@code asOf} (read-only, no locks): for the backlog gauges and
   * status.
   */
  Backlog backlog(Instant asOf, ConferenceRoomReaperOptions options);

  /**
   * Reads the database's clock in one cheap statement (no transaction left open, nothing locked)
   * and brackets it with {@code workerClock}: the moment of a cycle under {@link
   * ClockSource#DATABASE}, and the skew under either source.
   */
  ClockReading readClock(Clock workerClock);

  /**
   * When each phase next has a row to claim ({@link DueTimes}), the operators' pauses and the
   * database's clock, in one cheap read-only statement over the live rows: what the next-due
   * schedule reads after every cycle. A store that cannot tell throws; the schedule then falls back
   * to the polling interval.
   */
  default DueTimes dueTimes(Clock workerClock, ConferenceRoomReaperOptions options) {
    throw new UnsupportedOperationException("this store does not read due times");
  }

  /** The single-runner lock. Closing it releases the lock. */
  interface RunLock extends AutoCloseable {
    boolean acquired();

    /**
     * Fails with {@link LockLostException} when the server has taken the lock away (TTL passed,
     * connection lost).
     */
    void verifyHeld();

    /**
     * The operators' pauses, read in the same round trip as the lock attempt (also when another
     * runner holds the lock); {@link PauseState#NONE} for a store without pauses.
     */
    default PauseState pauses() {
      return PauseState.NONE;
    }

    /**
     * True when the lock's round trip found that {@code phase} has no row to claim and none to
     * re-arm at the cycle's moment: the cycle sends the phase no statement. False when it has work
     * or the store did not read it (then the phase's claim finds out).
     */
    default boolean nothingDue(Phase phase) {
      return false;
    }

    @Override
    void close();
  }

  /** One transaction: claim, write, commit. Closing without commit rolls back. */
  interface Batch extends AutoCloseable {

    /**
     * Claims, under the run lock, at most {@code limit} due rows of the phase, oldest first,
     * skipping rows other transactions hold, and counts the ones it skipped. Fails with {@link
     * LockLostException}, claiming nothing, when {@code lock} is no longer held.
     *
     * <p>The skipped-locked count is the due rows not claimed up to the last claimed row's {@link
     * ClaimPosition} (all of them when the claim was not full), and after {@code after} — the last
     * position of the phase's previous full batch in this cycle (drain mode), or {@code null} for
     * the first batch. Positions include the id, so rows that a full claim's {@code LIMIT} cut at
     * the last claimed timestamp are not counted; the lower bound keeps a row held across several
     * batches from being counted once per batch. A store may bound the rows it looks at past the
     * claim (PostgreSQL: a window of twice the limit) and count within that bound.
     *
     * <p>A store with pauses ({@link RunLock#pauses()}) reads them again in the claim, at {@code
     * asOf}: when the phase is paused by then it claims nothing and says so ({@link Claim#paused}).
     */
    Claim claim(
        RunLock lock,
        Phase phase,
        Instant cutoff,
        Instant asOf,
        int limit,
        @Nullable ClaimPosition after);

    /**
     * Moves the deadlines of {@code phase}'s rows that the cycle visited but that are not due at
     * {@code asOf} to when they next may be (a store that finds rows by a deadline it keeps; see
     * the PostgreSQL store's {@code Deadlines}). Returns how many rows it re-armed. Called once per
     * phase and cycle, after the phase's first claim, in the same transaction.
     */
    default int rearm(Phase phase, Instant asOf, ConferenceRoomReaperOptions options) {
      return 0;
    }

    /**
     * Commits only while {@code lock} is still held, else fails with {@link LockLostException} and
     * commits nothing: a runner that stalled inside the batch and lost its lock rolls back instead
     * of committing beside the new holder. The check must come after the batch's last write; a
     * store may have made it on that write's round trip already.
     */
    void commit(RunLock lock);

    /**
     * Writes the transitions with their status guard, and in the same transaction their outbox
     * rows. A row whose write fails in the database (a data or constraint error) is isolated and
     * reported, the rest are written. A transition in neither list lost its status guard. Every
     * outbox and recorder-stop row carries {@code origin}: its correlation id and trace context.
     */
    ApplyResult apply(List<Transition> transitions, CycleOrigin origin, Instant asOf);

    /** Keeps the error of each poison row on the row (attempts, last error, when to try again). */
    void recordFailures(
        Map<UUID, String> errors, Instant asOf, Duration retryBase, Duration retryCap);

    @Override
    void close();
  }

  /**
   * What {@link Batch#claim} took.
   *
   * @param rows the claimed rows, locked, in claim order
   * @param skippedLocked the due rows the claim passed over because another transaction held them
   *     ({@link Batch#claim})
   * @param paused an operator's pause of the phase (or of the whole reaper) was in force when the
   *     claim ran, so it claimed nothing: a pause committed after the cycle read its pauses holds
   *     from the next batch on, not only from the next cycle
   */
  record Claim(List<ConferenceSession> rows, int skippedLocked, boolean paused) {}

  /**
   * What {@link Batch#apply} did.
   *
   * @param applied transitions written, with their outbox rows
   * @param failed conference id → database error, for rows isolated as poison
   */
  record ApplyResult(List<Transition> applied, Map<UUID, String> failed) {
    public static final ApplyResult NOTHING = new ApplyResult(List.of(), Map.of());
  }
}
