package pin.messenger.reaper.core;

import java.time.Instant;

/**
 * The counters of one cycle (spec §Result).
 *
 * @param lockAcquired false when another runner held the run lock and the cycle was skipped
 * @param skippedLocked due rows passed over because another transaction held them
 * @param failed poison rows excluded from their batch
 * @param raceLost rows whose status guard matched nothing (closed by someone else meanwhile)
 * @param dryRun true when nothing was committed
 */
public record CycleResult(
    String jobRunId,
    Instant asOf,
    boolean lockAcquired,
    int emptyTimeout,
    int provisionFailed,
    int staleTimeout,
    int skippedLocked,
    int failed,
    int raceLost,
    long durationMs,
    boolean dryRun) {

  public int reaped() {
    return emptyTimeout + provisionFailed + staleTimeout;
  }
}
