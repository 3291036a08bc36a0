package pin.messenger.reaper.delivery;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jspecify.annotations.Nullable;

/**
 * The deliveries' spans, each continuing the trace context stored on its row ({@code trace_parent},
 * the W3C {@code traceparent} of the reaper cycle that wrote it):
 *
 * <ul>
 *   <li>the relay: a {@code PRODUCER} span {@code send <topic>} per record (OpenTelemetry messaging
 *       conventions for Kafka), started before the send and ended at the broker's acknowledgement;
 *   <li>the recorder-stop dispatcher: an HTTP {@code CLIENT} span per call (HTTP conventions),
 *       ended at the response.
 * </ul>
 *
 * The stored context is the span's parent, so the delivery joins the cycle's trace: each record or
 * call is sent on its own, and a span continuing the creation context is what the conventions
 * expect for that (a link is for a batch sent as one operation). The span's own context goes out in
 * the W3C {@code traceparent} header ({@link W3CTraceContextPropagator}: the wire format is the
 * contract's, whatever {@code OTEL_PROPAGATORS} says). A row without a (valid) stored context gets
 * a root span. With tracing off ({@link OpenTelemetry#noop()}) no span is recorded; the stored
 * context, if any, still goes out unchanged, and a row without one gets no header.
 */
final class DeliveryTracing {
  /** No spans; the stored contexts are passed on as they are. */
  static final DeliveryTracing OFF = new DeliveryTracing(OpenTelemetry.noop());

  static final String TRACEPARENT = "traceparent";
  static final String TRACESTATE = "tracestate";

  static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> MESSAGING_OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  static final AttributeKey<String> MESSAGING_OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> MESSAGING_DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> MESSAGING_MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<String> MESSAGING_KAFKA_KEY =
      AttributeKey.stringKey("messaging.kafka.message.key");
  static final AttributeKey<String> MESSAGING_PARTITION =
      AttributeKey.stringKey("messaging.destination.partition.id");
  static final AttributeKey<Long> MESSAGING_KAFKA_OFFSET =
      AttributeKey.longKey("messaging.kafka.offset");
  static final AttributeKey<String> HTTP_METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
  static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> CONFERENCE_ID = AttributeKey.stringKey("conference.id");
  static final AttributeKey<String> RECORDING_ID = AttributeKey.stringKey("recording.id");

  private static final TextMapGetter<String> STORED =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
          return List.of(TRACEPARENT);
        }

        @Override
        public @Nullable String get(@Nullable String carrier, String key) {
          return TRACEPARENT.equals(key) ? carrier : null;
        }
      };

  private final Tracer tracer;

  DeliveryTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("pin.messenger.conference-room-reaper");
  }

  /**
   * The context stored on a row, parsed as a W3C {@code traceparent}; the root context when there
   * is none or it is not a valid one (a row of another writer may hold anything).
   */
  static Context stored(@Nullable String traceParent) {
    if (traceParent == null || traceParent.isBlank()) {
      return Context.root();
    }
    return W3CTraceContextPropagator.getInstance().extract(Context.root(), traceParent, STORED);
  }

  /** Whether {@code traceParent} is a valid W3C {@code traceparent} (then sent unchanged). */
  static boolean isValid(@Nullable String traceParent) {
    return Span.fromContext(stored(traceParent)).getSpanContext().isValid();
  }

  /** Starts the relay's producer span of one record, under the row's stored context. */
  Span startSend(OutboxRow row) {
    var builder =
        tracer
            .spanBuilder("send " + row.topic())
            .setSpanKind(SpanKind.PRODUCER)
            .setParent(stored(row.traceParent()))
            .setAttribute(MESSAGING_SYSTEM, "kafka")
            .setAttribute(MESSAGING_OPERATION_NAME, "send")
            .setAttribute(MESSAGING_OPERATION_TYPE, "send")
            .setAttribute(MESSAGING_DESTINATION, row.topic())
            .setAttribute(MESSAGING_MESSAGE_ID, row.id().toString())
            .setAttribute(MESSAGING_KAFKA_KEY, row.key());
    if (row.subject() != null) {
      builder.setAttribute(CONFERENCE_ID, row.subject());
    }
    return builder.startSpan();
  }

  /** Ends a producer span at the broker's answer. */
  static void sent(Span span, @Nullable RecordMetadata metadata, @Nullable Throwable error) {
    if (error != null) {
      failed(span, error);
      return;
    }
    if (metadata != null) {
      span.setAttribute(MESSAGING_PARTITION, Integer.toString(metadata.partition()));
      if (metadata.hasOffset()) {
        span.setAttribute(MESSAGING_KAFKA_OFFSET, metadata.offset());
      }
    }
    span.end();
  }

  /** Ends a span as failed by {@code error}. */
  static void failed(Span span, Throwable error) {
    span.setAttribute(ERROR_TYPE, error.getClass().getName());
    span.setStatus(StatusCode.ERROR, SendOutcome.describe(error));
    span.end();
  }

  /**
   * Writes {@code span}'s context as W3C Trace Context headers ({@code traceparent}, and {@code
   * tracestate} if it has one); nothing when it has no valid context.
   */
  static void inject(Span span, BiConsumer<String, String> header) {
    W3CTraceContextPropagator.getInstance()
        .inject(
            Context.root().with(span),
            header,
            (carrier, key, value) -> {
              if (carrier != null) {
                carrier.accept(key, value);
              }
            });
  }

  /** The URL as the conventions want it in {@code url.full}: no credentials. */
  static String redacted(URI uri) {
    String userInfo = uri.getRawUserInfo();
    return userInfo == null
        ? uri.toString()
        : uri.toString().replace(userInfo + "@", "REDACTED:REDACTED@");
  }

  /**
   * Sends a recorder call inside an HTTP client span under {@code stop}'s stored context, with the
   * span's {@code traceparent} on the request; the span ends with the response (or the transport
   * error).
   */
  <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpClient http, HttpRequest request, StopRequest stop, HttpResponse.BodyHandler<T> handler) {
    URI uri = request.uri();
    var builder =
        tracer
            .spanBuilder(request.method())
            .setSpanKind(SpanKind.CLIENT)
            .setParent(stored(stop.traceParent()))
            .setAttribute(HTTP_METHOD, request.method())
            .setAttribute(URL_FULL, redacted(uri))
            .setAttribute(CONFERENCE_ID, stop.conferenceId().toString())
            .setAttribute(RECORDING_ID, stop.recordingId().toString());
    if (uri.getHost() != null) {
      builder.setAttribute(SERVER_ADDRESS, uri.getHost());
    }
    int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
    builder.setAttribute(SERVER_PORT, (long) port);
    Span span = builder.startSpan();
    HttpRequest.Builder traced = HttpRequest.newBuilder(request, (name, value) -> true);
    inject(span, traced::setHeader);
    CompletableFuture<HttpResponse<T>> response;
    try {
      response = http.sendAsync(traced.build(), handler);
    } catch (RuntimeException e) {
      failed(span, e);
      throw e;
    }
    return response.whenComplete(
        (r, error) -> {
          if (error != null) {
            failed(span, error.getCause() != null ? error.getCause() : error);
            return;
          }
          int status = r.statusCode();
          span.setAttribute(HTTP_STATUS, (long) status);
          if (status >= 400) {
            span.setAttribute(ERROR_TYPE, Integer.toString(status));
            span.setStatus(StatusCode.ERROR);
          }
          span.end();
        });
  }
}
