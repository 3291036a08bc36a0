package pin.messenger.reaper.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.delivery.DeliveryObserver;
import pin.messenger.reaper.delivery.OutboxRelay;
import pin.messenger.reaper.delivery.RelayOptions;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.KafkaTestSupport;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * Issue #15: a consumer joins a conference-ended record to the cycle that produced it. A real cycle
 * (SDK tracer, in-memory exporter) closes a room in a real PostgreSQL, the relay publishes the
 * outbox row to a real (in-process KRaft) broker, a stock consumer reads the record and extracts
 * its context with OpenTelemetry's W3C propagator, and the exported spans lead from it back to the
 * cycle: record → relay's producer span → cycle span.
 */
class TraceContextEndToEndTest {
  static final String TOPIC = ConferenceEndedEvent.TOPIC;
  static TestDatabase db;
  static EmbeddedKafkaKraftBroker broker;

  @BeforeAll
  static void start() {
    db = TestDatabase.create();
    broker = KafkaTestSupport.broker(0, TOPIC);
  }

  @AfterAll
  static void stop() {
    broker.destroy();
    db.close();
  }

  @Test
  void a_consumer_follows_the_records_traceparent_through_the_relay_span_to_the_cycle_span()
      throws Exception {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();
    Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
    Rooms rooms = new Rooms(db.dataSource());
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    rooms.join(room.id, room.startedBy, room.startedAt);
    rooms.recording(room.id, "Recording", room.startedAt);
    ReaperTracing tracing = new ReaperTracing(otel);

    CycleResult cycleResult =
        new ConferenceRoomReaper(
                new PostgresReaperStore(db.dataSource()),
                ConferenceRoomReaperOptions.defaults(),
                Clock.systemUTC(),
                tracing,
                tracing,
                List.of())
            .runOnce(asOf, Cancellation.NONE);
    assertThat(cycleResult.emptyTimeout()).isEqualTo(1);
    SpanData cycle = only(exporter, ReaperTracing.CYCLE_SPAN);
    String stored =
        (String)
            rooms
                .query("SELECT trace_parent FROM messenger.integration_outbox")
                .get(0)
                .get("trace_parent");
    // The row carries the cycle span's context; the recorder-stop row of the same cycle the same.
    assertThat(stored).isEqualTo("00-" + cycle.getTraceId() + "-" + cycle.getSpanId() + "-01");
    assertThat(rooms.query("SELECT trace_parent FROM messenger.recorder_stop_requests").get(0))
        .containsEntry("trace_parent", stored);

    ConsumerRecord<String, byte[]> record;
    try (OutboxRelay relay =
            new OutboxRelay(
                db.dataSource(),
                () -> KafkaTestSupport.producer(broker.getBrokersAsString(), Map.of()),
                RelayOptions.defaults(),
                DeliveryObserver.NONE,
                Clock.systemUTC(),
                otel);
        KafkaConsumer<String, byte[]> consumer =
            KafkaTestSupport.consumer(broker.getBrokersAsString(), TOPIC)) {
      assertThat(relay.relayOnce(asOf).published()).isEqualTo(1);
      List<ConsumerRecord<String, byte[]>> records =
          KafkaTestSupport.readUntil(
              consumer, r -> r.key().equals(room.dealId.toString()), 1, Duration.ofSeconds(20));
      assertThat(records).hasSize(1);
      record = records.get(0);
    }

    // What a consumer does: extract the context from the record's headers.
    SpanContext extracted =
        Span.fromContext(
                W3CTraceContextPropagator.getInstance()
                    .extract(Context.root(), record.headers(), RecordHeaders.GETTER))
            .getSpanContext();
    assertThat(extracted.isValid()).as("a valid traceparent header").isTrue();
    assertThat(extracted.isRemote()).isTrue();

    Map<String, SpanData> byId =
        exporter.getFinishedSpanItems().stream()
            .collect(Collectors.toMap(SpanData::getSpanId, Function.identity()));
    SpanData producer = byId.get(extracted.getSpanId());
    assertThat(producer).as("the record's span among the exported spans").isNotNull();
    assertThat(producer.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(producer.getName()).isEqualTo("send " + TOPIC);
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("messaging.system")))
        .isEqualTo("kafka");
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))
        .isEqualTo(TOPIC);
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("messaging.operation.type")))
        .isEqualTo("send");
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("messaging.kafka.message.key")))
        .isEqualTo(room.dealId.toString());
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
        .isEqualTo(header(record.headers(), "ce_id"));
    assertThat(producer.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")))
        .isEqualTo(record.offset());
    assertThat(extracted.getTraceId()).isEqualTo(cycle.getTraceId());
    assertThat(ancestry(producer, byId))
        .as("producer span → … → cycle span, one trace")
        .extracting(SpanData::getSpanId)
        .endsWith(cycle.getSpanId());
    assertThat(producer.getParentSpanId()).isEqualTo(cycle.getSpanId());

    // The CloudEvents distributed-tracing extension names the originating context, unchanged.
    assertThat(header(record.headers(), "ce_traceparent")).isEqualTo(stored);
    assertThat(header(record.headers(), "ce_dataschema"))
        .isEqualTo(ConferenceEndedEvent.DATA_SCHEMA);

    // Every header the record carries is documented, and tracestate (sent when the context has
    // one; this cycle's has none).
    for (Header h : record.headers()) {
      assertListedInTheContract(h.key());
    }
    assertListedInTheContract("tracestate");
  }

  /**
   * Issue #15 part 3: the contract doc has a row for the header and the AsyncAPI file lists it
   * among the message's headers.
   */
  static void assertListedInTheContract(String name) throws java.io.IOException {
    String contract = Files.readString(Path.of("docs/contract/conference-ended.v1.md"));
    String asyncApi = Files.readString(Path.of("docs/contract/conference-ended.v1.asyncapi.yaml"));
    assertThat(contract).as("contract row of header %s", name).contains("| `" + name + "` |");
    assertThat(asyncApi)
        .as("AsyncAPI header %s", name)
        .containsPattern("(?m)^ {10}" + java.util.regex.Pattern.quote(name) + ":");
  }

  /** The span's chain of parents among {@code byId}, nearest first. */
  static List<SpanData> ancestry(SpanData span, Map<String, SpanData> byId) {
    List<SpanData> chain = new ArrayList<>();
    SpanData parent = byId.get(span.getParentSpanId());
    while (parent != null) {
      chain.add(parent);
      parent = byId.get(parent.getParentSpanId());
    }
    return chain;
  }

  static SpanData only(InMemorySpanExporter exporter, String name) {
    List<SpanData> spans =
        exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(spans).hasSize(1);
    return spans.get(0);
  }

  static @Nullable String header(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** A stock consumer's view of a record's headers for the W3C propagator. */
  enum RecordHeaders implements TextMapGetter<Headers> {
    GETTER;

    @Override
    public Iterable<String> keys(Headers carrier) {
      List<String> keys = new ArrayList<>();
      carrier.forEach(h -> keys.add(h.key()));
      return keys;
    }

    @Override
    public @Nullable String get(@Nullable Headers carrier, String key) {
      return carrier == null ? null : header(carrier, key);
    }
  }
}
