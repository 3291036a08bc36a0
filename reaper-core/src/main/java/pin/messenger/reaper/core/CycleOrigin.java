package pin.messenger.reaper.core;

import org.jspecify.annotations.Nullable;

/**
 * Where the rows a cycle writes come from, as the store records it on each outbox and recorder-stop
 * row.
 *
 * @param jobRunId the cycle's id, the correlation id on every log line of the cycle and in {@code
 *     correlation_id}
 * @param traceParent the W3C {@code traceparent} of the cycle's span ({@link TraceContext}); null
 *     when tracing is off
 */
public record CycleOrigin(String jobRunId, @Nullable String traceParent) {

  /** An origin without trace context. */
  public static CycleOrigin of(String jobRunId) {
    return new CycleOrigin(jobRunId, null);
  }
}
