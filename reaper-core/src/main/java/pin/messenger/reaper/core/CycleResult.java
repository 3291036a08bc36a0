package pin.messenger.reaper.core;

import java.time.Instant;

/**
 * The counters of one cycle (spec §Result).
 *
 * @param lockAcquired false when another runner held the run lock and the cycle was skipped
 * @param skippedLocked due rows passed over because another transaction held them
 * @param poisoned poison rows excluded from their batch (isolated, their error recorded, retried
 *     after a backoff); {@code failed} in the run-once document, the cycle log line and the span
 * @param raceLost claimed rows neither closed nor poison: the in-transaction re-check ({@link
 *     ReaperDecision}) found them no longer due, or the status guard of the write matched nothing.
 *     Under the row lock both mean a writer changed the row without taking its lock; expected 0
 * @param dryRun true when nothing was committed
 * @param pausedPhases phases this cycle skipped because an operator paused them ({@code bin/reaper
 *     pause})
 */
public record CycleResult(
    String jobRunId,
    Instant asOf,
    boolean lockAcquired,
    int emptyTimeout,
    int provisionFailed,
    int staleTimeout,
    int skippedLocked,
    int poisoned,
    int raceLost,
    long durationMs,
    boolean dryRun,
    int pausedPhases) {

  public int reaped() {
    return emptyTimeout + provisionFailed + staleTimeout;
  }
}
