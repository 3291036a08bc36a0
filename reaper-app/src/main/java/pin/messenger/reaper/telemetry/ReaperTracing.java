package pin.messenger.reaper.telemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.TraceContext;
import pin.messenger.reaper.core.Transition;

/**
 * OpenTelemetry spans: one per cycle ({@code conference-room-reaper.cycle}, attribute {@code
 * correlation_id} = jobRunId, with the cycle's counters) and one per item under it ({@code
 * conference-room-reaper.item}: conference id, phase, outcome, deal tenant id). Ids and enums only.
 * The cycle runs on one thread, so the open cycle span is kept per thread.
 *
 * <p>As the {@link TraceContext}, it gives the cycle span's W3C {@code traceparent}: the context
 * written on the cycle's outbox and recorder-stop rows, which the deliveries continue. The cycle
 * span, not the item span: the rows of a batch are written in one statement before any item span
 * exists (item spans are made after commit), and the item span of a conference is found under the
 * cycle span by its {@code conference.id}.
 */
public final class ReaperTracing implements ReaperObserver, TraceContext {
  public static final String CYCLE_SPAN = "conference-room-reaper.cycle";
  public static final String ITEM_SPAN = "conference-room-reaper.item";

  static final AttributeKey<String> CORRELATION_ID = AttributeKey.stringKey("correlation_id");
  static final AttributeKey<String> AS_OF = AttributeKey.stringKey("reaper.as_of");
  static final AttributeKey<String> CONFERENCE_ID = AttributeKey.stringKey("conference.id");
  static final AttributeKey<String> PHASE = AttributeKey.stringKey("reaper.phase");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("reaper.outcome");
  static final AttributeKey<String> DEAL_TENANT_ID = AttributeKey.stringKey("deal.tenant_id");

  /** The W3C Trace Context header (and carrier key) of a span's context. */
  static final String TRACEPARENT = "traceparent";

  private final Tracer tracer;
  private final ThreadLocal<Span> cycle = new ThreadLocal<>();

  public ReaperTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("pin.messenger.conference-room-reaper");
  }

  @Override
  public void cycleStarted(String jobRunId, Instant asOf) {
    Span span =
        tracer
            .spanBuilder(CYCLE_SPAN)
            .setSpanKind(SpanKind.INTERNAL)
            .setNoParent()
            .setAttribute(CORRELATION_ID, jobRunId)
            .setAttribute(AS_OF, asOf.toString())
            .startSpan();
    cycle.set(span);
  }

  /**
   * The open cycle span of this thread as a W3C {@code traceparent}; null without one, or when its
   * context is not valid (tracing disabled: a no-op OpenTelemetry makes invalid contexts).
   */
  @Override
  public @Nullable String traceParent() {
    Span span = cycle.get();
    if (span == null || !span.getSpanContext().isValid()) {
      return null;
    }
    Map<String, String> carrier = new HashMap<>(2);
    W3CTraceContextPropagator.getInstance()
        .inject(
            Context.root().with(span),
            carrier,
            (c, key, value) -> {
              if (c != null) {
                c.put(key, value);
              }
            });
    return carrier.get(TRACEPARENT);
  }

  @Override
  public void cycleCompleted(CycleResult r) {
    Span span = cycle.get();
    if (span == null) {
      return;
    }
    span.setAttribute("reaper.lock_acquired", r.lockAcquired());
    span.setAttribute("reaper.empty_timeout", r.emptyTimeout());
    span.setAttribute("reaper.provision_failed", r.provisionFailed());
    span.setAttribute("reaper.stale_timeout", r.staleTimeout());
    span.setAttribute("reaper.skipped_locked", r.skippedLocked());
    span.setAttribute("reaper.failed", r.poisoned());
    span.end();
    cycle.remove();
  }

  @Override
  public void cycleFailed(String jobRunId, Throwable error) {
    Span span = cycle.get();
    if (span == null) {
      return;
    }
    span.recordException(error);
    span.setStatus(StatusCode.ERROR, error.getClass().getSimpleName());
    span.end();
    cycle.remove();
  }

  /** A cancelled cycle's span ends too (it was left open before), marked as cancelled. */
  @Override
  public void cycleCancelled(String jobRunId) {
    Span span = cycle.get();
    if (span == null) {
      return;
    }
    span.setAttribute("reaper.cancelled", true);
    span.end();
    cycle.remove();
  }

  @Override
  public void conferenceReaped(String jobRunId, Transition t) {
    item(t.conferenceId(), t.phase(), t.phase().outcome(), t.session().tenantId(), null);
  }

  @Override
  public void itemFailed(String jobRunId, Phase phase, UUID conferenceId, String error) {
    item(conferenceId, phase, "failed", null, error);
  }

  private void item(
      UUID conferenceId,
      Phase phase,
      String outcome,
      @Nullable UUID tenantId,
      @Nullable String error) {
    Span parent = cycle.get();
    var builder =
        tracer
            .spanBuilder(ITEM_SPAN)
            .setAttribute(CONFERENCE_ID, conferenceId.toString())
            .setAttribute(PHASE, phase.label())
            .setAttribute(OUTCOME, outcome);
    if (parent != null) {
      builder.setParent(Context.current().with(parent));
    }
    if (tenantId != null) {
      builder.setAttribute(DEAL_TENANT_ID, tenantId.toString());
    }
    Span span = builder.startSpan();
    if (error != null) {
      span.setStatus(StatusCode.ERROR, error);
    }
    span.end();
  }
}
