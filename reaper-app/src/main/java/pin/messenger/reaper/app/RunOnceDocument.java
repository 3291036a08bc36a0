package pin.messenger.reaper.app;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.CycleResult;

/**
 * The JSON object {@code run-once} prints last: the cycle's counters, then what the bounded
 * delivery pass after it delivered ({@code published}, {@code recorderStopsDelivered}: absent when
 * no pass ran, i.e. on a dry run or when stopped).
 */
record RunOnceDocument(
    // Lists CycleResult's counters again on purpose: this record is the printed JSON document (its
    // own field order, delivery counts added), kept apart from the core result; CliJsonTest pins
    // it.
    String jobRunId,
    Instant asOf,
    boolean lockAcquired,
    boolean dryRun,
    int emptyTimeout,
    int provisionFailed,
    int staleTimeout,
    int skippedLocked,
    int failed,
    int raceLost,
    long durationMs,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer published,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer recorderStopsDelivered) {

  /** The cycle alone, before (or without) a delivery pass. */
  static RunOnceDocument of(CycleResult r) {
    return new RunOnceDocument(
        r.jobRunId(),
        r.asOf(),
        r.lockAcquired(),
        r.dryRun(),
        r.emptyTimeout(),
        r.provisionFailed(),
        r.staleTimeout(),
        r.skippedLocked(),
        r.poisoned(),
        r.raceLost(),
        r.durationMs(),
        null,
        null);
  }

  /** With the figures of the delivery pass that followed the cycle. */
  RunOnceDocument delivered(int published, int recorderStopsDelivered) {
    return new RunOnceDocument(
        jobRunId,
        asOf,
        lockAcquired,
        dryRun,
        emptyTimeout,
        provisionFailed,
        staleTimeout,
        skippedLocked,
        failed,
        raceLost,
        durationMs,
        published,
        recorderStopsDelivered);
  }
}
