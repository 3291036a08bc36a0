package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.TraceContext;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.LiveKitEgressServer;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * The LiveKit and Jibri adapters end to end: a real reaper cycle writes the stop request (with the
 * recording's external id), the dispatcher sends it to a local server speaking the wire format (the
 * testkit's {@link LiveKitEgressServer}, which verifies the token as LiveKit does; a recording
 * {@link WireServer} for Jibri), and the outcome lands on the row in a real PostgreSQL.
 */
class RecorderAdaptersTest extends DatabaseTest {
  static final String API_KEY = "APIreaperTest";
  static final String API_SECRET = "a-livekit-api-secret-of-at-least-32-bytes";

  final Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
  LiveKitEgressServer livekit;
  WireServer jibri;

  @BeforeEach
  void setUp() throws Exception {
    livekit = new LiveKitEgressServer(API_KEY, API_SECRET);
    jibri = new WireServer();
  }

  @AfterEach
  void tearDown() {
    livekit.close();
    jibri.close();
  }

  RecorderOptions options(RecorderOptions.Kind kind, String liveKitSecret) {
    RecorderOptions d = RecorderOptions.defaults(null);
    return new RecorderOptions( // Our own http API: the recording WireServer stands for it as for
        // Jibri.
        kind == RecorderOptions.Kind.HTTP ? jibri.url() : null,
        d.connectTimeout(),
        Duration.ofMillis(500),
        d.batchSize(),
        d.pollInterval(),
        d.lease(),
        10,
        d.retryBase(),
        d.retryCap(),
        kind,
        new RecorderOptions.LiveKit(
            kind == RecorderOptions.Kind.LIVEKIT ? livekit.url() : null,
            kind == RecorderOptions.Kind.LIVEKIT ? API_KEY : null,
            kind == RecorderOptions.Kind.LIVEKIT ? liveKitSecret : null),
        new RecorderOptions.Jibri(
            kind == RecorderOptions.Kind.JIBRI ? jibri.url().resolve("/") : null));
  }

  RecorderStopDispatcher dispatcher(RecorderOptions.Kind kind) {
    return dispatcher(kind, API_SECRET);
  }

  RecorderStopDispatcher dispatcher(RecorderOptions.Kind kind, String liveKitSecret) {
    return new RecorderStopDispatcher(
        db.dataSource(), options(kind, liveKitSecret), DeliveryObserver.NONE);
  }

  /** A room with a live recording whose media-stack id is {@code externalId}, closed by a cycle. */
  UUID reapedRecording(@Nullable String externalId) {
    return reapedRecording(externalId, TraceContext.NONE);
  }

  /** As {@link #reapedRecording(String)}, by a cycle running under {@code trace}. */
  UUID reapedRecording(@Nullable String externalId, TraceContext trace) {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    UUID recording = rooms.recording(room.id, "Recording", room.startedAt);
    rooms.exec(
        "UPDATE messenger.call_recordings SET external_id = ? WHERE id = ?", externalId, recording);
    new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            ConferenceRoomReaperOptions.defaults(),
            Clock.systemUTC(),
            ReaperObserver.NONE,
            trace,
            List.of())
        .runOnce(asOf, Cancellation.NONE);
    return (UUID) rooms.query("SELECT id FROM messenger.recorder_stop_requests").get(0).get("id");
  }

  Map<String, Object> request(UUID id) {
    return rooms.query("SELECT * FROM messenger.recorder_stop_requests WHERE id = ?", id).get(0);
  }

  @ParameterizedTest
  @EnumSource(RecorderOptions.Kind.class)
  void every_adapter_sends_a_traceparent_from_a_client_span_continuing_the_stored_context(
      RecorderOptions.Kind kind) throws Exception {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();
    // Stands for the reaper cycle's span (made at the edge, reaper-app's ReaperTracing).
    Span cycle = otel.getTracer("test").spanBuilder("cycle").startSpan();
    Map<String, String> carrier = new HashMap<>();
    W3CTraceContextPropagator.getInstance()
        .inject(Context.root().with(cycle), carrier, (c, k, v) -> c.put(k, v));
    String stored = carrier.get("traceparent");
    UUID request = reapedRecording("EG_traced", () -> stored);
    livekit.egress("EG_traced", "room-traced");
    cycle.end();
    assertThat(request(request).get("trace_parent")).isEqualTo(stored);

    RecorderStopDispatcher.StepResult r =
        new RecorderStopDispatcher(
                db.dataSource(), options(kind, API_SECRET), DeliveryObserver.NONE, otel)
            .dispatchOnce(asOf);

    assertThat(r.delivered()).isEqualTo(1);
    String url;
    String traceparent;
    if (kind == RecorderOptions.Kind.LIVEKIT) {
      LiveKitEgressServer.Call call = livekit.calls().get(0);
      url = livekit.url() + call.path();
      traceparent = call.header("traceparent");
    } else {
      WireServer.Call call = jibri.calls().get(0);
      url = jibri.url() + call.path();
      traceparent = call.header("traceparent");
    }
    assertThat(traceparent).isNotNull().isNotEqualTo(stored);
    SpanContext sent =
        Span.fromContext(
                W3CTraceContextPropagator.getInstance()
                    .extract(Context.root(), traceparent, TraceparentCarrier.GETTER))
            .getSpanContext();
    assertThat(sent.isValid()).isTrue();
    SpanData client =
        exporter.getFinishedSpanItems().stream()
            .filter(sp -> sp.getSpanId().equals(sent.getSpanId()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no exported span has the id " + traceparent));
    assertThat(client.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(client.getName()).isEqualTo("POST");
    assertThat(client.getTraceId()).isEqualTo(cycle.getSpanContext().getTraceId());
    assertThat(client.getParentSpanId()).isEqualTo(cycle.getSpanContext().getSpanId());
    assertThat(client.getAttributes().get(DeliveryTracing.HTTP_METHOD)).isEqualTo("POST");
    assertThat(client.getAttributes().get(DeliveryTracing.HTTP_STATUS)).isEqualTo(200L);
    assertThat(client.getAttributes().get(DeliveryTracing.URL_FULL)).isEqualTo(url);
  }

  /** The {@code traceparent} value itself as a one-header carrier. */
  enum TraceparentCarrier implements TextMapGetter<String> {
    GETTER;

    @Override
    public Iterable<String> keys(String carrier) {
      return List.of("traceparent");
    }

    @Override
    public String get(String carrier, String key) {
      return "traceparent".equals(key) ? carrier : null;
    }
  }

  @Test
  void the_reaper_copies_the_recordings_external_id_into_the_stop_request() {
    UUID request = reapedRecording("EG_copied");

    assertThat(request(request).get("external_id")).isEqualTo("EG_copied");
  }

  @Test
  void livekit_stop_posts_stop_egress_with_the_egress_id_and_a_short_lived_room_record_token()
      throws Exception {
    UUID request = reapedRecording("EG_abc123");
    livekit.egress("EG_abc123", "room-abc");
    Instant before = Instant.now();

    RecorderStopDispatcher.StepResult r =
        dispatcher(RecorderOptions.Kind.LIVEKIT).dispatchOnce(asOf);

    assertThat(r.delivered()).isEqualTo(1);
    assertThat(livekit.calls()).hasSize(1);
    LiveKitEgressServer.Call call = livekit.calls().get(0);
    assertThat(call.method()).isEqualTo("POST");
    assertThat(call.path()).isEqualTo("/twirp/livekit.Egress/StopEgress");
    assertThat(call.header("Content-Type")).isEqualTo("application/json");
    assertThat((String) JsonPath.read(call.body(), "$.egress_id")).isEqualTo("EG_abc123");
    assertThat(call.tokenVerified()).as(call.refusal()).isTrue();
    assertThat(call.roomRecordGranted()).isTrue();
    assertThat(call.status()).isEqualTo(200);
    assertThat(livekit.status("EG_abc123")).isEqualTo(LiveKitEgressServer.ENDING);
    String authorization = call.header("Authorization");
    assertThat(authorization).startsWith("Bearer ");
    SignedJWT jwt = SignedJWT.parse(authorization.substring("Bearer ".length()));
    assertThat(jwt.getHeader().getAlgorithm().getName()).isEqualTo("HS256");
    assertThat(jwt.verify(new MACVerifier(API_SECRET.getBytes(StandardCharsets.UTF_8)))).isTrue();
    assertThat(
            jwt.verify(
                new MACVerifier(
                    "another-secret-of-at-least-32-bytes!!".getBytes(StandardCharsets.UTF_8))))
        .isFalse();
    JWTClaimsSet claims = jwt.getJWTClaimsSet();
    assertThat(claims.getIssuer()).isEqualTo(API_KEY);
    assertThat(claims.getExpirationTime().toInstant())
        .isAfter(before)
        .isBeforeOrEqualTo(Instant.now().plus(Duration.ofMinutes(5)));
    assertThat(claims.getNotBeforeTime().toInstant()).isBeforeOrEqualTo(Instant.now());
    assertThat(claims.getJSONObjectClaim("video")).containsEntry("roomRecord", true);
    Map<String, Object> row = request(request);
    assertThat((Instant) row.get("delivered_at"))
        .isAfter(asOf); // the answer's time, not the step's
    assertThat(row.get("last_error")).isNull();
  }

  @ParameterizedTest(name = "{0} {1} → {2}")
  @CsvSource({
    "404, not_found, delivered",
    "412, failed_precondition, delivered",
    "503, unavailable, failed",
    "504, deadline_exceeded, failed",
    "500, internal, failed",
    "502, '', failed",
    "401, unauthenticated, gave_up",
    "403, permission_denied, gave_up",
    "400, invalid_argument, gave_up",
  })
  void livekit_twirp_error_codes_map_to_delivered_retried_or_given_up_at_once(
      int status, String code, String expected) throws Exception {
    UUID request = reapedRecording("EG_abc123");
    livekit.egress("EG_abc123", "room-abc");
    livekit.answer(
        status,
        code.isEmpty() ? "<html>bad gateway</html>" : "{\"code\":\"" + code + "\",\"msg\":\"m\"}");

    RecorderStopDispatcher.StepResult r =
        dispatcher(RecorderOptions.Kind.LIVEKIT).dispatchOnce(asOf);

    Map<String, Object> row = request(request);
    assertThat(row.get("attempts")).isEqualTo(1);
    switch (expected) {
      case "delivered" -> {
        assertThat(r.delivered()).isEqualTo(1);
        assertThat((Instant) row.get("delivered_at"))
            .isAfter(asOf); // the answer's time, not the step's
        assertThat((String) row.get("last_error")).contains(code).contains("already stopped");
      }
      case "failed" -> {
        assertThat(r.failed()).isEqualTo(1);
        assertThat(r.gaveUp()).isZero();
        assertThat(row.get("delivered_at")).isNull();
        assertThat(row.get("gave_up_at")).isNull();
        assertThat((Instant) row.get("next_attempt_at")).isAfter(asOf);
        assertThat((String) row.get("last_error")).contains("LiveKit HTTP " + status);
      }
      case "gave_up" -> {
        // Max attempts is 10: only the code gives it up on the first attempt.
        assertThat(r.gaveUp()).isEqualTo(1);
        assertThat(row.get("delivered_at")).isNull();
        assertThat(row.get("gave_up_at")).isEqualTo(asOf);
        assertThat((String) row.get("last_error")).contains(code).contains("not retried");
      }
      default -> throw new IllegalArgumentException(expected);
    }
  }

  @Test
  void a_token_signed_with_the_wrong_secret_is_refused_given_up_and_not_claimed_again()
      throws Exception {
    UUID request = reapedRecording("EG_abc123");
    livekit.egress("EG_abc123", "room-abc");
    // LiveKit's authentication answers a bad signature with a bare 401, before Twirp: no code.
    RecorderStopDispatcher dispatcher =
        dispatcher(RecorderOptions.Kind.LIVEKIT, "another-secret-of-at-least-32-bytes!!");

    RecorderStopDispatcher.StepResult first = dispatcher.dispatchOnce(asOf);
    RecorderStopDispatcher.StepResult later =
        dispatcher.dispatchOnce(asOf.plus(Duration.ofHours(1)));

    assertThat(first.gaveUp()).isEqualTo(1);
    assertThat(later.claimed()).isZero();
    assertThat(livekit.calls())
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.status()).isEqualTo(401);
              assertThat(call.tokenVerified()).isFalse();
            });
    assertThat(livekit.status("EG_abc123")).isEqualTo(LiveKitEgressServer.ACTIVE);
    Map<String, Object> row = request(request);
    assertThat(row.get("attempts")).isEqualTo(1);
    assertThat(row.get("gave_up_at")).isEqualTo(asOf);
    assertThat((String) row.get("last_error"))
        .startsWith("LiveKit HTTP 401")
        .contains("not retried");
  }

  @Test
  void a_livekit_request_without_an_egress_id_is_given_up_without_a_call() throws Exception {
    UUID request = reapedRecording(null);

    RecorderStopDispatcher.StepResult r =
        dispatcher(RecorderOptions.Kind.LIVEKIT).dispatchOnce(asOf);

    assertThat(r.gaveUp()).isEqualTo(1);
    assertThat(livekit.calls()).isEmpty();
    Map<String, Object> row = request(request);
    assertThat(row.get("gave_up_at")).isEqualTo(asOf);
    assertThat((String) row.get("last_error")).contains("nothing to stop by");
  }

  @Test
  void jibri_stop_posts_stop_service_and_2xx_is_delivered() throws Exception {
    UUID request = reapedRecording(null);

    RecorderStopDispatcher.StepResult r = dispatcher(RecorderOptions.Kind.JIBRI).dispatchOnce(asOf);

    assertThat(r.delivered()).isEqualTo(1);
    assertThat(jibri.calls())
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.method()).isEqualTo("POST");
              assertThat(call.path()).isEqualTo("/jibri/api/v1.0/stopService");
              // Tracing off and no stored context: no trace header at all.
              assertThat(call.header("traceparent")).isNull();
            });
    assertThat(request(request).get("trace_parent")).isNull();
    assertThat((Instant) request(request).get("delivered_at")).isAfter(asOf);
  }

  @Test
  void a_jibri_error_is_a_failed_call_retried_with_backoff() throws Exception {
    UUID request = reapedRecording(null);
    jibri.answer(500, "");

    RecorderStopDispatcher.StepResult r = dispatcher(RecorderOptions.Kind.JIBRI).dispatchOnce(asOf);

    assertThat(r.failed()).isEqualTo(1);
    assertThat(r.gaveUp()).isZero();
    Map<String, Object> row = request(request);
    assertThat(row.get("gave_up_at")).isNull();
    assertThat((String) row.get("last_error")).isEqualTo("Jibri HTTP 500");
  }
}
