package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.TraceContext;
import pin.messenger.reaper.schema.SchemaMigrations;
import pin.messenger.reaper.store.DebeziumOutboxRows;
import pin.messenger.reaper.store.OutboxOptions;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.ContractSchema;
import pin.messenger.reaper.testing.KafkaTestSupport;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * {@code reaper.outbox.mode=debezium} against the real engine: Debezium's PostgreSQL connector and
 * outbox event router, run as Debezium's embedded engine with the connector configuration shipped
 * in ops/kafka-connect/ (only the connection to this test's server replaced), on a PostgreSQL with
 * {@code wal_level=logical} prepared by ops/sql/debezium-replication.sql (the connector logs in as
 * its least-privilege replication role), publishing to an in-process KRaft broker through the
 * converters the configuration names, as a Kafka Connect worker does. The same conference closed in
 * each mode gives the same record as a consumer reads it; a connector stopped mid-stream and
 * started again loses nothing, and what it sends twice carries the same {@code ce_id}.
 *
 * <p>The embedded engine rather than Connect standalone in process: the engine runs the same
 * connector and transformations from the same properties, and needs no REST server, plugin path or
 * worker of its own; what a worker adds (the converters and the producer) is a few lines here, in
 * {@link Engine#publish}, with the converter classes the configuration names.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DebeziumOutboxContractTest {
  static final String TOPIC = ConferenceEndedEvent.TOPIC;
  static final Path CONNECTOR =
      Path.of("ops", "kafka-connect", "conference-room-reaper-outbox.json");
  static final Path REPLICATION_SQL = Path.of("ops", "sql", "debezium-replication.sql");

  /** The only settings of the shipped configuration this test replaces: where the database is. */
  static final Set<String> REPLACED =
      Set.of("database.hostname", "database.port", "database.dbname", "database.password");

  /** The cycles' trace context: the same in both modes, so ce_traceparent compares equal. */
  static final String CYCLE_TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  static EmbeddedPostgres pg;
  static HikariDataSource relayDb;
  static HikariDataSource debeziumDb;
  static Rooms relayRooms;
  static Rooms debeziumRooms;
  static EmbeddedKafkaKraftBroker broker;
  static OpenTelemetrySdk otel;
  static Path offsets;
  static Engine engine;

  @BeforeAll
  static void start() throws Exception {
    pg =
        EmbeddedPostgres.builder()
            .setServerConfig("wal_level", "logical")
            .setServerConfig("max_wal_senders", "4")
            .setServerConfig("max_replication_slots", "4")
            .start();
    relayDb = database("reaper_relay");
    debeziumDb = database("reaper_debezium");
    relayRooms = new Rooms(relayDb);
    debeziumRooms = new Rooms(debeziumDb);
    try (Connection c = debeziumDb.getConnection();
        Statement st = c.createStatement()) {
      // One statement at a time, as psql runs the file: the slot cannot be made in a transaction
      // that wrote.
      for (String statement : statements(Files.readString(REPLICATION_SQL))) {
        st.execute(statement);
      }
    }
    broker = KafkaTestSupport.broker(0, TOPIC);
    // The connector makes the record's traceparent from the row's tracing column only with an
    // OpenTelemetry SDK in its JVM (as a Connect worker run with the OpenTelemetry agent has).
    GlobalOpenTelemetry.resetForTest();
    otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .buildAndRegisterGlobal();
    offsets = Files.createTempDirectory("debezium-offsets").resolve("offsets.dat");
    engine = new Engine();
    engine.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (engine != null) {
      engine.stop();
    }
    if (broker != null) {
      broker.destroy();
    }
    GlobalOpenTelemetry.resetForTest();
    for (AutoCloseable c : new AutoCloseable[] {relayDb, debeziumDb, pg}) {
      if (c != null) {
        c.close();
      }
    }
    if (offsets != null) {
      Files.deleteIfExists(offsets);
      Files.deleteIfExists(offsets.getParent());
    }
  }

  /** The statements of a SQL file: split at a line ending in ';' outside a $$ body. */
  static List<String> statements(String sql) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean inBody = false;
    for (String line : sql.split("\n")) {
      if (line.strip().startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (line.split("\\$\\$", -1).length % 2 == 0) {
        inBody = !inBody;
      }
      if (!inBody && line.strip().endsWith(";")) {
        out.add(current.toString());
        current.setLength(0);
      }
    }
    assertThat(current.toString()).as("the file ends with a complete statement").isBlank();
    return out;
  }

  static HikariDataSource database(String name) throws Exception {
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(pg.getJdbcUrl("postgres", name));
    config.setUsername("postgres");
    config.setMaximumPoolSize(4);
    HikariDataSource ds = new HikariDataSource(config);
    SchemaMigrations.migrate(ds);
    return ds;
  }

  static CycleResult reap(PostgresReaperStore store, Instant asOf) {
    TraceContext traced = () -> CYCLE_TRACEPARENT;
    return new ConferenceRoomReaper(
            store,
            ConferenceRoomReaperOptions.defaults(),
            Clock.systemUTC(),
            ReaperObserver.NONE,
            traced,
            List.of())
        .runOnce(asOf, Cancellation.NONE);
  }

  static PostgresReaperStore debeziumStore() {
    return new PostgresReaperStore(
        debeziumDb,
        new OutboxOptions(OutboxOptions.Mode.DEBEZIUM),
        RelayOptions.defaults().source());
  }

  @Test
  void a_conference_closed_in_either_mode_reaches_the_consumer_as_the_same_record()
      throws Exception {
    Instant asOf = Instant.parse("2026-12-02T10:00:00.1234Z");
    Room room = Rooms.emptyActive(asOf.minusSeconds(120));
    relayRooms.insert(room);
    relayRooms.join(room.id, room.startedBy, room.startedAt);
    debeziumRooms.insert(room);
    debeziumRooms.join(room.id, room.startedBy, room.startedAt);

    CycleResult relayCycle = reap(new PostgresReaperStore(relayDb), asOf);
    try (OutboxRelay relay =
        new OutboxRelay(
            relayDb,
            () -> KafkaTestSupport.producer(broker.getBrokersAsString(), Map.of()),
            RelayOptions.defaults(),
            DeliveryObserver.NONE,
            Clock.systemUTC(),
            otel)) {
      assertThat(relay.relayOnce(asOf).published()).isEqualTo(1);
    }
    CycleResult debeziumCycle = reap(debeziumStore(), asOf);
    // Insert-only: nothing of the close is left in either outbox table of the debezium database.
    assertThat(debeziumRooms.count("SELECT count(*) FROM " + DebeziumOutboxRows.TABLE)).isZero();
    assertThat(debeziumRooms.count("SELECT count(*) FROM messenger.integration_outbox")).isZero();
    assertThat(debeziumRooms.status(room.id)).isEqualTo("Ended");

    List<ConsumerRecord<String, byte[]>> records;
    try (KafkaConsumer<String, byte[]> consumer =
        KafkaTestSupport.consumer(broker.getBrokersAsString(), TOPIC)) {
      records =
          KafkaTestSupport.readUntil(
              consumer, r -> r.key().equals(room.dealId.toString()), 2, Duration.ofSeconds(60));
    }
    assertThat(records).hasSize(2);
    ConsumerRecord<String, byte[]> fromRelay = byCorrelation(records, relayCycle.jobRunId());
    ConsumerRecord<String, byte[]> fromDebezium = byCorrelation(records, debeziumCycle.jobRunId());

    assertThat(fromDebezium.topic()).isEqualTo(fromRelay.topic()).isEqualTo(TOPIC);
    assertThat(fromDebezium.key()).isEqualTo(fromRelay.key()).isEqualTo(room.dealId.toString());
    String value = new String(fromDebezium.value(), StandardCharsets.UTF_8);
    assertThat(value).isEqualTo(new String(fromRelay.value(), StandardCharsets.UTF_8));
    ContractSchema.assertValid(value);
    assertThat((String) JsonPath.read(value, "$.conferenceId")).isEqualTo(room.id.toString());

    Map<String, String> relayHeaders = headers(fromRelay);
    Map<String, String> debeziumHeaders = headers(fromDebezium);
    assertThat(debeziumHeaders.keySet())
        .as("every header, and no other")
        .containsExactlyInAnyOrderElementsOf(relayHeaders.keySet());
    assertThat(relayHeaders.keySet())
        .containsExactlyInAnyOrder(
            "ce_specversion",
            "ce_id",
            "ce_type",
            "ce_source",
            "ce_time",
            "ce_subject",
            "ce_dataschema",
            "ce_correlationid",
            "ce_traceparent",
            "traceparent",
            "content-type");
    // What differs by nature between two events: their ids, their cycles, their producer spans.
    Set<String> perEvent = Set.of("ce_id", "ce_correlationid", "traceparent");
    relayHeaders.forEach(
        (name, v) -> {
          if (!perEvent.contains(name)) {
            assertThat(debeziumHeaders.get(name)).as(name).isEqualTo(v);
          }
        });
    assertThat(debeziumHeaders.get("ce_time")).isEqualTo("2026-12-02T10:00:00.123400Z");
    assertThat(debeziumHeaders.get("ce_correlationid")).isEqualTo(debeziumCycle.jobRunId());
    assertThat(UUID.fromString(debeziumHeaders.get("ce_id")))
        .isNotEqualTo(UUID.fromString(relayHeaders.get("ce_id")));
    // traceparent: a span of its own in the cycle's trace, as the relay's producer span is.
    for (Map<String, String> h : List.of(relayHeaders, debeziumHeaders)) {
      String[] parts = h.get("traceparent").split("-");
      assertThat(h.get("traceparent")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
      assertThat(parts[1]).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
      assertThat(parts[2]).isNotEqualTo("00f067aa0ba902b7");
    }

    try (CloudEventDeserializer parser = new CloudEventDeserializer()) {
      CloudEvent relayed = parser.deserialize(TOPIC, fromRelay.headers(), fromRelay.value());
      CloudEvent cdc = parser.deserialize(TOPIC, fromDebezium.headers(), fromDebezium.value());
      assertThat(cdc.getType()).isEqualTo(relayed.getType());
      assertThat(cdc.getSource()).isEqualTo(relayed.getSource());
      assertThat(cdc.getTime()).isEqualTo(relayed.getTime());
      assertThat(cdc.getTime().toInstant()).isEqualTo(asOf);
      assertThat(cdc.getSubject()).isEqualTo(room.id.toString());
      assertThat(cdc.getDataSchema()).isEqualTo(relayed.getDataSchema());
      assertThat(cdc.getDataContentType()).isEqualTo("application/json");
    }
  }

  @Test
  void a_connector_stopped_mid_stream_and_rooms_closed_while_it_is_down_lose_nothing()
      throws Exception {
    // With its offsets kept the connector resumes after what it confirmed (whether it sends a
    // record twice is its business; restartMidStream checks that any such record keeps its ce_id).
    var unused =
        restartMidStream(
            Instant.parse("2026-12-02T11:00:00.5Z"), Instant.parse("2026-12-02T11:05:00Z"), false);
  }

  @Test
  void a_connector_that_lost_its_offsets_sends_again_only_with_the_same_ce_id() throws Exception {
    // A crash after sending and before the offset was stored: the connector resumes from what the
    // replication slot last confirmed, before the transaction it was in the middle of.
    int sentAgain =
        restartMidStream(
            Instant.parse("2026-12-02T12:00:00.25Z"), Instant.parse("2026-12-02T12:05:00Z"), true);
    assertThat(sentAgain).as("records sent twice").isPositive();
  }

  /**
   * Closes 30 rooms in one transaction, stops the connector after it published 10 of them (the rest
   * of its batch not confirmed), closes 10 more while it is down, starts it again (without its
   * offsets if {@code loseOffsets}) and checks that every conference arrived and that a conference
   * sent more than once always carried the same {@code ce_id}. Returns how many records were sent
   * again.
   */
  int restartMidStream(Instant first, Instant second, boolean loseOffsets) throws Exception {
    List<Room> before = rooms(30, first);
    List<Room> whileDown = rooms(10, second);
    Set<String> expected = new HashSet<>();
    before.forEach(r -> expected.add(r.id.toString()));
    whileDown.forEach(r -> expected.add(r.id.toString()));

    try (KafkaConsumer<String, byte[]> consumer =
        KafkaTestSupport.consumer(broker.getBrokersAsString(), TOPIC)) {
      CountDownLatch stopped = engine.stopAfter(10);
      assertThat(reap(debeziumStore(), first).reaped()).isEqualTo(30);
      assertThat(stopped.await(60, TimeUnit.SECONDS))
          .as("the connector sent 10 and stopped")
          .isTrue();
      engine.stop();
      if (loseOffsets) {
        Files.deleteIfExists(offsets);
      }

      assertThat(reap(debeziumStore(), second).reaped()).isEqualTo(10);
      engine = new Engine();
      engine.start();

      // Until every conference arrived (a count of records would stop early on duplicates), then
      // one more poll for late duplicates.
      List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
      Map<String, Set<String>> idsBySubject = new LinkedHashMap<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      boolean last = false;
      while (!last) {
        last = idsBySubject.size() == expected.size() || System.nanoTime() > deadline;
        for (ConsumerRecord<String, byte[]> r :
            consumer.poll(Duration.ofMillis(last ? 1000 : 200))) {
          Map<String, String> h = headers(r);
          if (expected.contains(h.get("ce_subject"))) {
            records.add(r);
            idsBySubject
                .computeIfAbsent(h.get("ce_subject"), k -> new HashSet<>())
                .add(h.get("ce_id"));
            ContractSchema.assertValid(new String(r.value(), StandardCharsets.UTF_8));
          }
        }
      }
      assertThat(idsBySubject.keySet())
          .as("every conference closed, before and while the connector was down")
          .containsExactlyInAnyOrderElementsOf(expected);
      idsBySubject.forEach(
          (subject, ids) ->
              assertThat(ids).as("a redelivery of %s carries the same ce_id", subject).hasSize(1));
      return records.size() - idsBySubject.size();
    }
  }

  static List<Room> rooms(int n, Instant asOf) {
    List<Room> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Room room = debeziumRooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
      out.add(room);
    }
    return out;
  }

  static ConsumerRecord<String, byte[]> byCorrelation(
      List<ConsumerRecord<String, byte[]>> records, String jobRunId) {
    return records.stream()
        .filter(r -> jobRunId.equals(headers(r).get("ce_correlationid")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no record of cycle " + jobRunId));
  }

  /** Every header as text; a name sent twice fails. */
  static Map<String, String> headers(ConsumerRecord<String, byte[]> r) {
    Map<String, String> out = new HashMap<>();
    for (Header h : r.headers()) {
      String previous =
          out.put(
              h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
      assertThat(previous).as("header %s sent once", h.key()).isNull();
    }
    return out;
  }

  /**
   * Debezium's embedded engine with the shipped connector configuration, and what a Kafka Connect
   * worker does with its records: the configured converters, then a producer to the topic.
   */
  static final class Engine {
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final KafkaProducer<byte[], byte[]> producer;
    private final Converter keys;
    private final Converter values;
    private final HeaderConverter headerConverter;
    private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    private final AtomicInteger stopAfter = new AtomicInteger(-1);
    private volatile CountDownLatch stopped = new CountDownLatch(0);

    Engine() throws Exception {
      Map<String, Object> shipped = JsonPath.read(Files.readString(CONNECTOR), "$.config");
      assertThat(shipped.keySet()).containsAll(REPLACED);
      Properties props = new Properties();
      shipped.forEach((k, v) -> props.setProperty(k, String.valueOf(v)));
      props.setProperty("name", JsonPath.read(Files.readString(CONNECTOR), "$.name"));
      props.setProperty("database.hostname", "localhost");
      props.setProperty("database.port", String.valueOf(pg.getPort()));
      props.setProperty("database.dbname", "reaper_debezium");
      props.setProperty("database.password", "trusted-locally");
      // The embedded engine's own bookkeeping (a Connect worker keeps offsets in a topic).
      props.setProperty(
          "offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
      props.setProperty("offset.storage.file.filename", offsets.toString());
      props.setProperty("offset.flush.interval.ms", "0");
      keys = converter(props.getProperty("key.converter"), true);
      values = converter(props.getProperty("value.converter"), false);
      headerConverter =
          (HeaderConverter)
              Class.forName(props.getProperty("header.converter"))
                  .getDeclaredConstructor()
                  .newInstance();
      headerConverter.configure(Map.of());
      producer =
          new KafkaProducer<>(
              Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  broker.getBrokersAsString(),
                  ProducerConfig.ACKS_CONFIG,
                  "all",
                  ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                  true,
                  ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                  ByteArraySerializer.class,
                  ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                  ByteArraySerializer.class));
      engine =
          DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
              .using(props)
              .notifying(
                  (events, committer) -> {
                    for (RecordChangeEvent<SourceRecord> e : events) {
                      if (stopAfter.get() == 0) {
                        stopped.countDown();
                        return; // Stopped: the rest of the batch is not confirmed.
                      }
                      publish(e.record());
                      committer.markProcessed(e);
                      stopAfter.decrementAndGet();
                    }
                    committer.markBatchFinished();
                  })
              .build();
    }

    private static Converter converter(String type, boolean isKey) throws Exception {
      Converter c = (Converter) Class.forName(type).getDeclaredConstructor().newInstance();
      c.configure(Map.of(), isKey);
      return c;
    }

    /** As Kafka Connect's source task does: converters, then the producer, acknowledged. */
    void publish(SourceRecord r) {
      RecordHeaders headers = new RecordHeaders();
      for (org.apache.kafka.connect.header.Header h : r.headers()) {
        headers.add(
            h.key(), headerConverter.fromConnectHeader(r.topic(), h.key(), h.schema(), h.value()));
      }
      byte[] key = keys.fromConnectData(r.topic(), headers, r.keySchema(), r.key());
      byte[] value = values.fromConnectData(r.topic(), headers, r.valueSchema(), r.value());
      try {
        producer
            .send(new ProducerRecord<>(r.topic(), null, r.timestamp(), key, value, headers))
            .get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("could not publish " + r.topic(), e);
      }
    }

    void start() {
      executor.execute(engine);
    }

    /** From now on, publish {@code n} records, then stop confirming; the latch opens then. */
    CountDownLatch stopAfter(int n) {
      stopped = new CountDownLatch(1);
      stopAfter.set(n);
      return stopped;
    }

    void stop() throws IOException, InterruptedException {
      engine.close();
      executor.shutdown();
      assertThat(executor.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
      producer.close(Duration.ofSeconds(5));
    }
  }
}
