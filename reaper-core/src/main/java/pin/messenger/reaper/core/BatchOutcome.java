package pin.messenger.reaper.core;

/**
 * Counts of one committed (or, in a dry run, rolled back) batch of one phase. {@code raceLost} is
 * as in {@link CycleResult}: claimed rows the re-check found no longer due or the status guard
 * missed.
 */
public record BatchOutcome(int claimed, int closed, int skippedLocked, int poisoned, int raceLost) {
  static final BatchOutcome EMPTY = new BatchOutcome(0, 0, 0, 0, 0);

  BatchOutcome plus(BatchOutcome o) {
    return new BatchOutcome(
        claimed + o.claimed,
        closed + o.closed,
        skippedLocked + o.skippedLocked,
        poisoned + o.poisoned,
        raceLost + o.raceLost);
  }
}
