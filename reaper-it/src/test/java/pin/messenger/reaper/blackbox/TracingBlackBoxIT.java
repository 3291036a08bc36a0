package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.testing.FakeMediaStack;
import pin.messenger.reaper.testing.KafkaTestSupport;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * The tracing settings as a user sets them, against the packaged jar: the README's two export
 * variables deliver spans to a real OTLP/HTTP receiver (run-once and run), a protocol the jar
 * cannot speak is one start-up line naming the setting, and {@code OTEL_SDK_DISABLED=true} (or
 * {@code -Dotel.sdk.disabled=true}) means no trace context on the rows, the Kafka records or the
 * recorder calls — while by default, without any collector, all three carry one.
 */
class TracingBlackBoxIT {
  private static PostgresServer pg;
  private static Rooms rooms;
  private static EmbeddedKafkaKraftBroker broker;

  @BeforeAll
  static void database() throws Exception {
    pg = PostgresServer.startMigrated();
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(pg.jdbcUrl());
    ds.setUser("postgres");
    rooms = new Rooms(ds);
    broker = KafkaTestSupport.broker(0, ConferenceEndedEvent.TOPIC);
    // A fresh broker answers metadata requests before it knows the topic: wait until it does, so a
    // run-once's relay (2 s to learn a topic's metadata) publishes at its first try.
    try (Producer<String, byte[]> probe =
        KafkaTestSupport.producer(broker.getBrokersAsString(), Map.of())) {
      Await.until(
          "the broker knows " + ConferenceEndedEvent.TOPIC,
          Duration.ofSeconds(120),
          () -> {
            try {
              return !probe.partitionsFor(ConferenceEndedEvent.TOPIC).isEmpty();
            } catch (RuntimeException e) {
              return false;
            }
          });
    }
  }

  /** Each test's rooms alone: a run-once delivers every pending row, an earlier test's too. */
  @BeforeEach
  void empty() {
    rooms.truncateAll();
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.destroy();
    }
    if (pg != null) {
      pg.close();
    }
  }

  /** A real OTLP/HTTP receiver: {@code POST /v1/traces}, the bodies it got, answers 200. */
  static final class OtlpReceiver implements AutoCloseable {
    record Export(String path, String contentType, byte[] body) {}

    final List<Export> exports = new CopyOnWriteArrayList<>();
    private final HttpServer server;

    OtlpReceiver() throws Exception {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/",
          exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
              body = in.readAllBytes();
            }
            if (exchange.getRequestMethod().equals("POST")) {
              exports.add(
                  new Export(
                      exchange.getRequestURI().getPath(),
                      exchange.getRequestHeaders().getFirst("Content-Type"),
                      body));
            }
            // An empty ExportTraceServiceResponse: full success.
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
          });
      server.start();
    }

    String endpoint() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Whether a trace export carries the trace id of {@code traceParent} (16 raw bytes). */
    boolean received(String traceParent) {
      byte[] traceId = HexFormat.of().parseHex(traceParent.split("-")[1]);
      return exports.stream()
          .anyMatch(
              e ->
                  e.path().equals("/v1/traces")
                      && "application/x-protobuf".equals(e.contentType())
                      && indexOf(e.body(), traceId) >= 0);
    }

    String describe() {
      List<String> seen = new ArrayList<>();
      exports.forEach(e -> seen.add(e.path() + " " + e.contentType() + " " + e.body().length));
      return "; received " + seen;
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** The README's two variables, and the database; nothing else about tracing. */
  private static Map<String, String> exporting(OtlpReceiver receiver) {
    Map<String, String> env = new HashMap<>(JarRunner.database(pg));
    env.put("OTEL_TRACES_EXPORTER", "otlp");
    env.put("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
    return env;
  }

  private static String traceParentOfOutboxRow(Room room) {
    Object v = outboxTraceParent(room);
    assertThat(v).as("the outbox row's trace_parent").isNotNull();
    return v.toString();
  }

  private static Object outboxTraceParent(Room room) {
    List<Map<String, Object>> rows =
        rooms.query(
            "SELECT trace_parent FROM messenger.integration_outbox WHERE message_key = ?",
            room.dealId.toString());
    assertThat(rows).as("the room's outbox row").hasSize(1);
    return rows.get(0).get("trace_parent");
  }

  @Test
  void the_readmes_two_variables_export_the_run_once_cycles_spans_over_otlp_http()
      throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      Room room = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(300)));

      JarRunner.Split run = JarRunner.runSplit(exporting(receiver), "run-once");

      assertThat(run.exit()).as(run.stdout() + run.stderr()).isZero();
      String traceParent = traceParentOfOutboxRow(room);
      Await.until(
          "the cycle's trace " + traceParent + " at the OTLP receiver",
          Duration.ofSeconds(30),
          () -> receiver.received(traceParent),
          receiver::describe);
    }
  }

  @Test
  void the_readmes_two_variables_export_the_workers_spans_over_otlp_http() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (OtlpReceiver receiver = new OtlpReceiver();
        ReaperWorker worker =
            ReaperWorker.start(
                "tracing-export",
                exporting(receiver),
                JarRunner.JVM,
                List.of("run", "--server.port=" + port, "--reaper.polling-interval=500ms"))) {
      worker.awaitStarted(Duration.ofSeconds(120));
      Room room = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(300)));
      Await.until(
          "the worker closes the room",
          Duration.ofSeconds(60),
          () -> !rooms.status(room.id).equals("Active"),
          () -> "\n" + worker.tail(20));
      String traceParent = traceParentOfOutboxRow(room);
      // The batch span processor exports every few seconds while the worker runs.
      Await.until(
          "the cycle's trace " + traceParent + " at the OTLP receiver",
          Duration.ofSeconds(60),
          () -> receiver.received(traceParent),
          () -> receiver.describe() + "\n" + worker.tail(20));
    }
  }

  /**
   * What a user sees when the protocol is one this jar cannot export with: exit 1 as for an invalid
   * reaper.* option, no stack of bean errors, one log line naming the setting as it was set and the
   * accepted value; {@code run-once} adds its {@code {"error": …}} document with that line.
   */
  private static void refusedWithOneLine(JarRunner.Split run, String setting) {
    String all = run.stdout() + run.stderr();
    assertThat(run.exit()).as(all).isEqualTo(1);
    assertThat(all)
        .doesNotContain("GrpcSenderProvider")
        .doesNotContain("Error creating bean")
        .doesNotContain("Exception encountered during context initialization");
    // Besides the start-up line, run-once logs its error document's cause once ("run-once failed",
    // logger Failures, README exit status 1): that is the document's log, not a second report.
    assertThat(
            all.lines()
                .filter(l -> l.contains(setting) && !l.startsWith("{\"error\""))
                .filter(l -> !l.contains("\"logger\":\"pin.messenger.reaper.telemetry.Failures\"")))
        .as(all)
        .singleElement()
        .satisfies(l -> assertThat(l).contains(setting + "=grpc").contains("http/protobuf"));
  }

  private static void documented(JarRunner.Split run, String setting) {
    assertThat(run.stdout().strip().lines().reduce((x, y) -> y).orElse(""))
        .startsWith("{\"error\":\"Invalid OpenTelemetry setting: " + setting + "=grpc ");
  }

  @Test
  void a_grpc_protocol_is_refused_at_start_up_with_one_line_naming_the_setting() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      Map<String, String> env = exporting(receiver);
      env.put("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc");

      JarRunner.Split once = JarRunner.runSplit(env, "run-once");
      refusedWithOneLine(once, "OTEL_EXPORTER_OTLP_PROTOCOL");
      documented(once, "OTEL_EXPORTER_OTLP_PROTOCOL");
      refusedWithOneLine(
          JarRunner.runSplit(env, "run", "--server.port=0"), "OTEL_EXPORTER_OTLP_PROTOCOL");
      JarRunner.Split property =
          JarRunner.runSplit(
              exporting(receiver),
              JarRunner.jvm("-Dotel.exporter.otlp.traces.protocol=grpc"),
              "run-once");
      refusedWithOneLine(property, "otel.exporter.otlp.traces.protocol");
      documented(property, "otel.exporter.otlp.traces.protocol");
      assertThat(receiver.exports).isEmpty();
    }
  }

  /** One run-once of a closable room with a recording; what it stored and sent. */
  private record Delivered(
      Object outboxTraceParent,
      Object stopTraceParent,
      List<String> recordHeaders,
      Map<String, List<String>> recorderHeaders) {}

  /** A counter of run-once's JSON document. */
  private static int count(String document, String field) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"" + field + "\":(\\d+)").matcher(document);
    assertThat(m.find()).as(field + " in " + document).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static Delivered runOnceWithDeliveries(Map<String, String> tracing, List<String> jvm)
      throws Exception {
    try (FakeMediaStack media = new FakeMediaStack()) {
      Room room = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(300)));
      UUID recording = rooms.recording(room.id, "Recording", room.startedAt);
      Map<String, String> env = new HashMap<>(JarRunner.database(pg));
      env.put("SPRING_KAFKA_BOOTSTRAP_SERVERS", broker.getBrokersAsString());
      env.put("REAPER_RECORDER_BASE_URL", media.baseUrl().toString());
      env.putAll(tracing);

      // A cold run-once can find the broker unreachable under load (RunOncePasses); the row keeps
      // its trace context for the next pass.
      java.util.concurrent.atomic.AtomicInteger stopsDelivered =
          new java.util.concurrent.atomic.AtomicInteger();
      RunOncePasses.untilPublished(
          1,
          () -> {
            JarRunner.Split run = JarRunner.runSplit(env, jvm, "run-once");
            String document = run.stdout().strip().lines().reduce((a, b) -> b).orElse("");
            assertThat(run.exit()).as(run.stdout() + run.stderr()).isZero();
            stopsDelivered.addAndGet(count(document, "recorderStopsDelivered"));
            return new RunOncePasses.Pass(count(document, "published"), run.stdout());
          });
      assertThat(stopsDelivered.get()).as("recorder stops delivered").isEqualTo(1);
      Object outbox = outboxTraceParent(room);
      List<Map<String, Object>> stops =
          rooms.query(
              "SELECT trace_parent FROM messenger.recorder_stop_requests WHERE conference_id = ?",
              room.id);
      assertThat(stops).as("the room's recorder stop row").hasSize(1);
      List<String> headers = new ArrayList<>();
      try (KafkaConsumer<String, byte[]> consumer =
          KafkaTestSupport.consumer(broker.getBrokersAsString(), ConferenceEndedEvent.TOPIC)) {
        // Earlier tests' records are on the topic too: this room's is the one with its deal's key.
        List<ConsumerRecord<String, byte[]>> records =
            KafkaTestSupport.readUntil(
                consumer, r -> room.dealId.toString().equals(r.key()), 1, Duration.ofSeconds(60));
        assertThat(records).hasSize(1);
        for (Header h : records.get(0).headers()) {
          headers.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8));
        }
      }
      assertThat(media.calls()).filteredOn(c -> c.path().contains(recording.toString())).hasSize(1);
      Map<String, List<String>> recorder = new HashMap<>();
      media.calls().stream()
          .filter(c -> c.path().contains(recording.toString()))
          .findFirst()
          .orElseThrow()
          .headers()
          .forEach((k, v) -> recorder.put(k.toLowerCase(java.util.Locale.ROOT), v));
      return new Delivered(outbox, stops.get(0).get("trace_parent"), headers, recorder);
    }
  }

  @Test
  void by_default_without_any_collector_trace_context_is_stored_and_sent() throws Exception {
    Delivered d = runOnceWithDeliveries(Map.of(), JarRunner.JVM);

    assertThat(d.outboxTraceParent()).isNotNull();
    assertThat(d.stopTraceParent()).isNotNull();
    assertThat(d.recordHeaders())
        .anyMatch(h -> h.startsWith("traceparent="))
        .contains("ce_traceparent=" + d.outboxTraceParent());
    assertThat(d.recorderHeaders()).containsKey("traceparent");
  }

  @Test
  void otel_sdk_disabled_in_the_environment_stores_and_sends_no_trace_context() throws Exception {
    assertNoTraceContext(runOnceWithDeliveries(Map.of("OTEL_SDK_DISABLED", "true"), JarRunner.JVM));
  }

  @Test
  void otel_sdk_disabled_as_a_system_property_stores_and_sends_no_trace_context() throws Exception {
    assertNoTraceContext(
        runOnceWithDeliveries(Map.of(), JarRunner.jvm("-Dotel.sdk.disabled=true")));
  }

  private static void assertNoTraceContext(Delivered d) {
    assertThat(d.outboxTraceParent()).as("outbox trace_parent").isNull();
    assertThat(d.stopTraceParent()).as("recorder stop trace_parent").isNull();
    assertThat(d.recordHeaders())
        .as("the Kafka record's headers")
        .isNotEmpty()
        .noneMatch(h -> h.startsWith("traceparent=") || h.startsWith("ce_traceparent="))
        .noneMatch(h -> h.startsWith("tracestate="));
    assertThat(d.recorderHeaders())
        .as("the recorder call's headers")
        .containsKey("idempotency-key")
        .doesNotContainKey("traceparent");
  }
}
