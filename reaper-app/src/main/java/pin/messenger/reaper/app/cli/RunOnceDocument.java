package pin.messenger.reaper.app.cli;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.CycleResult;

/**
 * The JSON object {@code run-once} prints last: every counter of the cycle ({@link CycleResult}'s
 * components, so a counter added there is printed without a change here), then what the bounded
 * delivery pass after it delivered ({@code published}, {@code recorderStopsDelivered}: absent when
 * no pass ran, i.e. on a dry run or when stopped).
 */
record RunOnceDocument(
    @JsonUnwrapped CycleResult cycle,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer published,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer recorderStopsDelivered) {

  /** The cycle alone, before (or without) a delivery pass. */
  static RunOnceDocument of(CycleResult r) {
    return new RunOnceDocument(r, null, null);
  }

  /** With the figures of the delivery pass that followed the cycle. */
  RunOnceDocument delivered(int published, int recorderStopsDelivered) {
    return new RunOnceDocument(cycle, published, recorderStopsDelivered);
  }

  /**
   * How the document names and orders the cycle's counters (a Jackson mix-in, so the core stays
   * free of JSON): the README's order, {@code poisoned} printed as {@code failed}; a component not
   * named here follows in the record's order.
   */
  @JsonPropertyOrder({
    "jobRunId",
    "asOf",
    "lockAcquired",
    "dryRun",
    "emptyTimeout",
    "provisionFailed",
    "staleTimeout",
    "skippedLocked",
    "failed",
    "raceLost",
    "durationMs"
  })
  abstract static class CycleFields {
    @JsonProperty("failed")
    abstract int poisoned();

    @JsonIgnore
    abstract int reaped();
  }
}
