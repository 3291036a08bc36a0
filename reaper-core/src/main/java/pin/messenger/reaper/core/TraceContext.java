package pin.messenger.reaper.core;

import org.jspecify.annotations.Nullable;

/**
 * Port to the tracing at the edge: the W3C trace context a cycle runs under, as its {@code
 * traceparent} string ({@code 00-<trace id>-<span id>-<flags>}). The cycle reads it once, after
 * {@link ReaperObserver#cycleStarted}, and the store writes it on every outbox and recorder-stop
 * row of the cycle, so the deliveries after commit continue the cycle's trace. The core never
 * parses it: it is carried as the store got it.
 */
@FunctionalInterface
public interface TraceContext {

  /** No tracing: rows get no trace context, and nothing is spent on it. */
  TraceContext NONE = () -> null;

  /**
   * The {@code traceparent} of the cycle running on the calling thread; {@code null} when tracing
   * is off or there is no cycle. Called on the cycle's thread; must be cheap and must not throw.
   */
  @Nullable String traceParent();
}
