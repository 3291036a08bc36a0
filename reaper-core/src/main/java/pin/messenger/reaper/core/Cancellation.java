package pin.messenger.reaper.core;

import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * A stop request, checked by the cycle at named checkpoints: before every storage call and between
 * batches. A test (or a host) can stop the cycle at exactly the moment it means, by name.
 */
@FunctionalInterface
public interface Cancellation {

  /** Never cancelled. */
  Cancellation NONE = () -> false;

  /** Where in the cycle the stop is checked, in the order a batch passes them. */
  enum Checkpoint {
    /** Before the database's clock is read at the start of a cycle; no phase yet. */
    BEFORE_CLOCK_READ,
    /** Before the run lock is tried; no phase yet. */
    BEFORE_RUN_LOCK,
    /** Before each batch of a phase (the first one and every drain batch). */
    BEFORE_BATCH,
    /** The batch transaction is open; nothing claimed yet. */
    BEFORE_CLAIM,
    /** Rows claimed and locked; before the skipped-locked count. */
    BEFORE_COUNT,
    /** Decided in memory; before the set-based write of the transitions. */
    BEFORE_WRITE,
    /** Written; before the poison rows' errors are kept on them. */
    BEFORE_RECORD_FAILURES,
    /** Everything written; before the commit (a stop here rolls the batch back whole). */
    BEFORE_COMMIT,
    /** After the pause between two drain batches. */
    AFTER_DRAIN_PAUSE
  }

  /** The host's stop request (a flag set on shutdown): seen at the next checkpoint, whichever. */
  boolean isCancelled();

  /**
   * True when the cycle should stop at this checkpoint; by default whenever {@link #isCancelled}.
   *
   * @param phase the phase running, or null at {@link Checkpoint#BEFORE_CLOCK_READ} and {@link
   *     Checkpoint#BEFORE_RUN_LOCK}
   */
  default boolean isCancelledAt(Checkpoint at, @Nullable Phase phase) {
    return isCancelled();
  }

  default void throwIfCancelled(Checkpoint at, @Nullable Phase phase) {
    if (isCancelledAt(at, phase)) {
      throw new CancellationException("conference-room-reaper is stopping (at " + at + ")");
    }
  }

  /**
   * A stop at exactly one named checkpoint — of one phase, or of any phase when {@code phase} is
   * null — and nowhere else: how tests pick their moment by name rather than by counting calls.
   */
  static Cancellation at(Checkpoint checkpoint, @Nullable Phase phase) {
    return new Cancellation() {
      @Override
      public boolean isCancelled() {
        return false;
      }

      @Override
      public boolean isCancelledAt(Checkpoint at, @Nullable Phase current) {
        return at == checkpoint && (phase == null || phase == current);
      }
    };
  }
}
