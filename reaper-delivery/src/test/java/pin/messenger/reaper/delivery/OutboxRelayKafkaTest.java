package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.jayway.jsonpath.JsonPath;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.Diagnostics;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.ContractSchema;
import pin.messenger.reaper.testing.KafkaTestSupport;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;
import pin.messenger.reaper.testing.TcpProxy;
import pin.messenger.reaper.testing.TestDatabase;

/** The relay against a real (in-process KRaft) broker and a real PostgreSQL. */
class OutboxRelayKafkaTest {
  static final String TOPIC = ConferenceEndedEvent.TOPIC;
  static TestDatabase db;
  static Rooms rooms;
  static EmbeddedKafkaKraftBroker broker;

  final Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
  final RelayOptions options = withSendTimeout(RelayOptions.defaults(), Duration.ofSeconds(10));

  @BeforeAll
  static void start() {
    db = TestDatabase.create();
    rooms = new Rooms(db.dataSource());
    broker = KafkaTestSupport.broker(0, TOPIC);
  }

  @AfterAll
  static void stop() {
    broker.destroy();
    db.close();
  }

  @BeforeEach
  void clean() {
    rooms.truncateAll();
  }

  OutboxRelay relay(String servers, Map<String, Object> producerSettings, RelayOptions o) {
    return new OutboxRelay(
        db.dataSource(),
        () -> KafkaTestSupport.producer(servers, producerSettings),
        o,
        DeliveryObserver.NONE);
  }

  static RelayOptions withSendTimeout(RelayOptions o, Duration sendTimeout) {
    return new RelayOptions(
        o.batchSize(),
        o.pollInterval(),
        o.lease(),
        o.maxAttempts(),
        o.retryBase(),
        o.retryCap(),
        o.retention(),
        o.retentionBatch(),
        o.source(),
        sendTimeout,
        RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL);
  }

  /** Writes an outbox row as the reaper does (seq order = insertion order). */
  UUID outboxRow(String key, String payload) {
    UUID id = UUID.randomUUID();
    rooms.exec(
        "INSERT INTO messenger.integration_outbox (id, topic, message_key, event_type, payload, occurred_at, correlation_id)"
            + " VALUES (?, ?, ?, 'conference-ended.v1', ?::jsonb, ?, 'test')",
        id,
        TOPIC,
        key,
        payload,
        Rooms.ts(asOf));
    return id;
  }

  @Test
  void a_reaped_room_reaches_the_topic_keyed_by_deal_with_cloudevents_headers() throws Exception {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    rooms.join(room.id, room.startedBy, room.startedAt);
    new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            ConferenceRoomReaperOptions.defaults(),
            ReaperObserver.NONE,
            List.of())
        .runOnce(asOf, Cancellation.NONE);
    UUID outboxId =
        (UUID) rooms.query("SELECT id FROM messenger.integration_outbox").get(0).get("id");

    try (OutboxRelay relay = relay(broker.getBrokersAsString(), Map.of(), options);
        KafkaConsumer<String, byte[]> consumer =
            KafkaTestSupport.consumer(broker.getBrokersAsString(), TOPIC)) {
      OutboxRelay.StepResult step = relay.relayOnce(asOf);
      assertThat(step.published()).isEqualTo(1);

      List<ConsumerRecord<String, byte[]>> records =
          KafkaTestSupport.readUntil(
              consumer, r -> r.key().equals(room.dealId.toString()), 1, Duration.ofSeconds(20));
      assertThat(records).hasSize(1);
      ConsumerRecord<String, byte[]> record = records.get(0);
      assertThat(record.key()).isEqualTo(room.dealId.toString());
      String payload = new String(record.value(), StandardCharsets.UTF_8);
      ContractSchema.assertValid(payload);
      assertThat((String) JsonPath.read(payload, "$.conferenceId")).isEqualTo(room.id.toString());

      try (CloudEventDeserializer parser = new CloudEventDeserializer()) {
        CloudEvent event = parser.deserialize(record.topic(), record.headers(), record.value());
        assertThat(event.getSpecVersion().toString()).isEqualTo("1.0");
        assertThat(event.getId()).isEqualTo(outboxId.toString());
        assertThat(event.getType()).isEqualTo("pin.messenger.conference-ended.v1");
        assertThat(event.getSource().toString()).isEqualTo("/pin/messenger/conference-room-reaper");
        assertThat(event.getTime().toInstant()).isEqualTo(asOf);
        assertThat(event.getSubject()).isEqualTo(room.id.toString());
        assertThat(event.getDataContentType()).isEqualTo("application/json");
        assertThat(event.getExtension("correlationid")).isNotNull();
        assertThat(event.getDataSchema())
            .hasToString("https://pin.messenger/schemas/conference-ended.v1.schema.json");
        assertThat(new String(event.getData().toBytes(), StandardCharsets.UTF_8))
            .isEqualTo(payload);
      }
      // Tracing off on both sides (no trace context at the cycle, a no-op relay): the row has
      // none, and the record carries no trace header rather than an empty or made-up one.
      assertThat(rooms.query("SELECT trace_parent FROM messenger.integration_outbox").get(0))
          .containsEntry("trace_parent", null);
      assertThat(record.headers().lastHeader("traceparent")).isNull();
      assertThat(record.headers().lastHeader("tracestate")).isNull();
      assertThat(record.headers().lastHeader("ce_traceparent")).isNull();
    }
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE published_at IS NOT NULL"))
        .isEqualTo(1);
  }

  @Test
  void a_row_of_another_writer_with_a_malformed_trace_parent_is_published_without_trace_headers()
      throws Exception {
    String key = UUID.randomUUID().toString();
    UUID id = outboxRow(key, "{\"conferenceId\":\"" + UUID.randomUUID() + "\"}");
    rooms.exec(
        "UPDATE messenger.integration_outbox SET trace_parent = 'not-a-traceparent' WHERE id = ?",
        id);

    try (OutboxRelay relay = relay(broker.getBrokersAsString(), Map.of(), options);
        KafkaConsumer<String, byte[]> consumer =
            KafkaTestSupport.consumer(broker.getBrokersAsString(), TOPIC)) {
      assertThat(relay.relayOnce(asOf).published()).isEqualTo(1);

      ConsumerRecord<String, byte[]> record =
          KafkaTestSupport.readUntil(consumer, r -> r.key().equals(key), 1, Duration.ofSeconds(20))
              .get(0);
      assertThat(record.headers().lastHeader("ce_traceparent")).isNull();
      assertThat(record.headers().lastHeader("traceparent")).isNull();
      assertThat(record.headers().lastHeader("ce_id").value())
          .isEqualTo(id.toString().getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void
      payload_times_equal_the_rows_at_microsecond_precision_and_published_at_is_the_acknowledgement()
          throws Exception {
    Instant withNanos = Instant.parse("2026-12-02T10:00:07.895666637Z");
    Room room = rooms.insert(Rooms.emptyActive(withNanos.minusSeconds(120)));
    rooms.join(room.id, room.startedBy, room.startedAt);
    new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            ConferenceRoomReaperOptions.defaults(),
            ReaperObserver.NONE,
            List.of())
        .runOnce(withNanos, Cancellation.NONE);
    Instant expected = Instant.parse("2026-12-02T10:00:07.895666Z");

    try (OutboxRelay relay = relay(broker.getBrokersAsString(), Map.of(), options);
        KafkaConsumer<String, byte[]> consumer =
            KafkaTestSupport.consumer(broker.getBrokersAsString(), TOPIC)) {
      Instant before = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
      assertThat(relay.relayOnce(withNanos).published()).isEqualTo(1);
      Instant after = Instant.now();
      ConsumerRecord<String, byte[]> record =
          KafkaTestSupport.readUntil(
                  consumer, r -> r.key().equals(room.dealId.toString()), 1, Duration.ofSeconds(20))
              .get(0);
      String payload = new String(record.value(), StandardCharsets.UTF_8);
      String ceTime =
          new String(record.headers().lastHeader("ce_time").value(), StandardCharsets.UTF_8);
      Map<String, Object> row = rooms.query("SELECT * FROM messenger.integration_outbox").get(0);
      Object endedAt =
          rooms
              .query("SELECT ended_at FROM messenger.conference_sessions WHERE id = ?", room.id)
              .get(0)
              .get("ended_at");

      assertThat((String) JsonPath.read(payload, "$.endedAt"))
          .isEqualTo("2026-12-02T10:00:07.895666Z");
      assertThat(ceTime).isEqualTo("2026-12-02T10:00:07.895666Z");
      assertThat(endedAt).isEqualTo(expected);
      assertThat(row.get("occurred_at")).isEqualTo(expected);
      assertThat((Instant) row.get("published_at")).isBetween(before, after);
    }
  }

  @Test
  void ce_type_is_the_prefix_and_the_event_type_and_a_full_type_is_never_prefixed_twice() {
    assertThat(CloudEventRecord.ceType(ConferenceEndedEvent.EVENT_TYPE))
        .isEqualTo("pin.messenger.conference-ended.v1");
    assertThat(CloudEventRecord.ceType("pin.messenger.conference-ended.v1"))
        .isEqualTo("pin.messenger.conference-ended.v1");
  }

  @Test
  void broker_unreachable_leaves_rows_pending_uncounted_with_a_readable_error() throws Exception {
    UUID id = outboxRow(UUID.randomUUID().toString(), "{\"n\":1}");
    try (OutboxRelay relay = relay("127.0.0.1:1", Map.of(), options)) {
      OutboxRelay.StepResult step = relay.relayOnce(asOf);

      assertThat(step.unavailable()).isEqualTo(1);
      assertThat(step.published()).isZero();
    }
    Map<String, Object> row =
        rooms.query("SELECT * FROM messenger.integration_outbox WHERE id = ?", id).get(0);
    assertThat(row.get("published_at")).isNull();
    assertThat(row.get("quarantined_at")).isNull();
    assertThat(row.get("attempts")).isEqualTo(0);
    assertThat(row.get("locked_by")).isNull();
    assertThat((String) row.get("last_error")).isNotBlank();
  }

  @Test
  void a_record_the_broker_will_never_take_is_quarantined_and_does_not_block_other_keys()
      throws Exception {
    String poisonKey = "deal-big";
    UUID big = outboxRow(poisonKey, "{\"blob\":\"" + "x".repeat(5_000) + "\"}");
    UUID small = outboxRow("deal-small", "{\"n\":1}");
    UUID sameKeyLater = outboxRow(poisonKey, "{\"n\":2}");
    RelayOptions twoTries =
        new RelayOptions(
            100,
            Duration.ofSeconds(1),
            Duration.ofMinutes(2),
            2,
            Duration.ofSeconds(1),
            Duration.ofMinutes(5),
            Duration.ofDays(7),
            1000,
            RelayOptions.DEFAULT_SOURCE,
            Duration.ofSeconds(10),
            RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL);
    try (OutboxRelay relay =
        relay(
            broker.getBrokersAsString(),
            Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2_000),
            twoTries)) {

      OutboxRelay.StepResult first = relay.relayOnce(asOf);
      assertThat(first.refused()).isEqualTo(1);
      assertThat(first.published()).isEqualTo(1); // the other key went out
      // The refused row is the head of its key: the later row of that key waits behind it.
      assertThat(relay.relayOnce(asOf.plusMillis(10)).claimed()).isZero();

      OutboxRelay.StepResult second = relay.relayOnce(asOf.plusSeconds(5));
      assertThat(second.quarantined()).isEqualTo(1);
      OutboxRelay.StepResult third = relay.relayOnce(asOf.plusSeconds(6));
      assertThat(third.published()).isEqualTo(1);
      assertThat(outbox(rooms, "outbox_quarantined")).isEqualTo(1);
      assertThat(outbox(rooms, "outbox_pending")).isZero();
    }
    Map<String, Object> row =
        rooms.query("SELECT * FROM messenger.integration_outbox WHERE id = ?", big).get(0);
    assertThat(row.get("quarantined_at")).isNotNull();
    assertThat(row.get("attempts")).isEqualTo(2);
    assertThat((String) row.get("last_error")).contains("RecordTooLargeException");
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE published_at IS NOT NULL AND id IN (?, ?)",
                small,
                sameKeyLater))
        .isEqualTo(2);
  }

  @Test
  void two_relays_at_once_never_invert_the_order_of_a_key_and_publish_everything()
      throws Exception {
    int keys = 20;
    int perKey = 15;
    for (int n = 0; n < perKey; n++) {
      for (int k = 0; k < keys; k++) {
        outboxRow("order-key-" + k, "{\"n\":" + n + "}");
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (KafkaConsumer<String, byte[]> consumer =
        KafkaTestSupport.consumer(broker.getBrokersAsString(), TOPIC)) {
      List<Future<Integer>> relays = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        relays.add(
            pool.submit(
                () -> {
                  int published = 0;
                  try (OutboxRelay relay =
                      relay(
                          broker.getBrokersAsString(),
                          Map.of(),
                          new RelayOptions(
                              7,
                              Duration.ofSeconds(1),
                              Duration.ofMinutes(2),
                              10,
                              Duration.ofSeconds(1),
                              Duration.ofMinutes(5),
                              Duration.ofDays(7),
                              1000,
                              RelayOptions.DEFAULT_SOURCE,
                              Duration.ofSeconds(10),
                              RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL))) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (outbox(rooms, "outbox_pending") > 0 && System.nanoTime() < deadline) {
                      published += relay.relayOnce(asOf).published();
                    }
                  }
                  return published;
                }));
      }
      int total = 0;
      for (Future<Integer> f : relays) {
        total += f.get(90, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(keys * perKey);

      List<ConsumerRecord<String, byte[]>> records =
          KafkaTestSupport.read(consumer, keys * perKey, Duration.ofSeconds(30)).stream()
              .filter(r -> r.key().startsWith("order-key-"))
              .toList();
      Map<String, List<Integer>> byKey = new LinkedHashMap<>();
      for (ConsumerRecord<String, byte[]> r : records) {
        byKey
            .computeIfAbsent(r.key(), k -> new ArrayList<>())
            .add(JsonPath.read(new String(r.value(), StandardCharsets.UTF_8), "$.n"));
      }
      assertThat(byKey).hasSize(keys);
      List<Integer> expected = java.util.stream.IntStream.range(0, perKey).boxed().toList();
      byKey.values().forEach(ns -> assertThat(ns).isEqualTo(expected));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void
      broker_unreachable_during_a_backlog_then_back_delivers_everything_duplicates_only_with_the_same_ce_id()
          throws Exception {
    int total = 60;
    Set<UUID> ids = new java.util.HashSet<>();
    for (int i = 0; i < total; i++) {
      ids.add(outboxRow("outage-" + (i % 10), "{\"i\":" + i + "}"));
    }
    Map<String, Integer> seen = new HashMap<>();
    RelayOptions small =
        new RelayOptions(
            5,
            Duration.ofSeconds(1),
            Duration.ofMinutes(2),
            10,
            Duration.ofSeconds(1),
            Duration.ofMinutes(5),
            Duration.ofDays(7),
            1000,
            RelayOptions.DEFAULT_SOURCE,
            Duration.ofSeconds(10),
            RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL);
    // The relay reaches the broker only through a proxy that the broker also advertises: cutting
    // the proxy is
    // a full outage for the relay while the broker keeps its state, as a real broker restart or
    // partition does.
    try (TcpProxy network = new TcpProxy()) {
      EmbeddedKafkaKraftBroker own = new EmbeddedKafkaKraftBroker(1, 3);
      own.brokerProperty("advertised.listeners", "EXTERNAL://localhost:" + network.port());
      own.afterPropertiesSet();
      try {
        network.target(Integer.parseInt(own.getBrokersAsString().replaceAll(".*:", "")));
        own.addTopics(TOPIC);
        String servers = "localhost:" + network.port();
        try (OutboxRelay relay = relay(servers, Map.of(), small)) {
          assertThat(relay.relayOnce(asOf).published()).isEqualTo(5);

          network.cut();
          OutboxRelay.StepResult down = relay.relayOnce(asOf);
          assertThat(down.unavailable()).isPositive();
          assertThat(down.published()).isZero();
          assertThat(outbox(rooms, "outbox_pending")).isEqualTo(total - 5);

          network.restore();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
          while (outbox(rooms, "outbox_pending") > 0 && System.nanoTime() < deadline) {
            relay.relayOnce(asOf);
          }
          assertThat(outbox(rooms, "outbox_pending"))
              .as(
                  "pending; last errors %s",
                  rooms.query("SELECT DISTINCT last_error FROM messenger.integration_outbox"))
              .isZero();
        }
        collect(servers, seen, total);
      } finally {
        own.destroy();
      }
    }
    Set<String> expected = new java.util.HashSet<>();
    ids.forEach(id -> expected.add(id.toString()));
    assertThat(seen.keySet()).isEqualTo(expected);
  }

  /**
   * A producer of the real broker that runs {@code beforeFirstSend} once, as the relay hands it its
   * first record: the moment between a relay's claim and its mark.
   */
  @SuppressWarnings("unchecked")
  static Producer<String, byte[]> onFirstSend(
      Producer<String, byte[]> real, Runnable beforeFirstSend) {
    AtomicBoolean first = new AtomicBoolean(true);
    return (Producer<String, byte[]>)
        Proxy.newProxyInstance(
            Producer.class.getClassLoader(),
            new Class<?>[] {Producer.class},
            (proxy, method, args) -> {
              if (method.getName().equals("send") && first.getAndSet(false)) {
                beforeFirstSend.run();
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void a_step_that_outlived_its_lease_counts_the_row_as_lease_lost_and_does_not_mark_it_published()
      throws Exception {
    UUID id = outboxRow("deal-lease", "{\"n\":1}");
    LeasedRows<OutboxRow> relayB =
        new DeliveryStore(db.dataSource(), Duration.ofSeconds(5)).outbox("relay-B");
    List<OutboxRow> takenOver = new ArrayList<>();
    LostLeases observer = new LostLeases();
    try (OutboxRelay relayA =
        new OutboxRelay(
            db.dataSource(),
            () ->
                onFirstSend(
                    KafkaTestSupport.producer(broker.getBrokersAsString(), Map.of()),
                    () -> {
                      // A's lease runs out while it sends; B claims the row as a live relay would.
                      rooms.exec(
                          "UPDATE messenger.integration_outbox SET locked_until = ? WHERE id = ?",
                          Rooms.ts(asOf.minusSeconds(1)),
                          id);
                      try {
                        takenOver.addAll(relayB.claim(asOf, 100, options.lease()));
                      } catch (java.sql.SQLException e) {
                        throw new IllegalStateException(e);
                      }
                    }),
            options,
            observer)) {

      OutboxRelay.StepResult step = relayA.relayOnce(asOf);

      assertThat(takenOver).extracting(OutboxRow::id).containsExactly(id);
      assertThat(step.claimed()).isEqualTo(1);
      assertThat(step.published()).isZero();
      assertThat(step.leaseLost()).isEqualTo(1);
      assertThat(observer.rows).containsExactly(Map.entry("relay", 1));
    }
    Map<String, Object> row =
        rooms.query("SELECT * FROM messenger.integration_outbox WHERE id = ?", id).get(0);
    assertThat(row.get("published_at")).isNull();
    assertThat(row.get("locked_by")).isEqualTo("relay-B");
    assertThat(row.get("attempts")).isEqualTo(0);
  }

  @Test
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void a_row_lock_held_elsewhere_fails_the_mark_within_the_statement_timeout_instead_of_hanging()
      throws Exception {
    UUID id = outboxRow("deal-locked", "{\"n\":1}");
    // A 10s lease gives a 1s statement timeout (a tenth of the lease).
    RelayOptions shortLease =
        new RelayOptions(
            100,
            Duration.ofSeconds(1),
            Duration.ofSeconds(10),
            10,
            Duration.ofSeconds(1),
            Duration.ofMinutes(5),
            Duration.ofDays(7),
            1000,
            RelayOptions.DEFAULT_SOURCE,
            Duration.ofSeconds(5),
            RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL);
    assertThat(shortLease.statementTimeout()).isEqualTo(Duration.ofSeconds(1));
    try (java.sql.Connection holder = db.newConnection()) {
      holder.setAutoCommit(false);
      try (OutboxRelay relay =
          new OutboxRelay(
              db.dataSource(),
              () ->
                  onFirstSend(
                      KafkaTestSupport.producer(broker.getBrokersAsString(), Map.of()),
                      () -> lockRow(holder, id)),
              shortLease,
              DeliveryObserver.NONE)) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> relay.relayOnce(asOf))
            .isInstanceOfSatisfying(
                java.sql.SQLException.class,
                e -> assertThat(e.getSQLState()).isEqualTo("57014")); // query_canceled
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .isLessThan(shortLease.sendTimeout());
      } finally {
        holder.rollback();
      }
    }
    Map<String, Object> row =
        rooms.query("SELECT * FROM messenger.integration_outbox WHERE id = ?", id).get(0);
    assertThat(row.get("published_at")).isNull();
    assertThat((String) row.get("locked_by")).startsWith("relay-");
  }

  static void lockRow(java.sql.Connection holder, UUID id) {
    try (java.sql.PreparedStatement ps =
        holder.prepareStatement(
            "SELECT 1 FROM messenger.integration_outbox WHERE id = ? FOR UPDATE")) {
      ps.setObject(1, id);
      ps.executeQuery().close();
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Reads {@code expected} records of the current broker into ce_id → count. */
  static void collect(String servers, Map<String, Integer> seen, int expected) {
    try (KafkaConsumer<String, byte[]> consumer = KafkaTestSupport.consumer(servers, TOPIC)) {
      for (ConsumerRecord<String, byte[]> r :
          KafkaTestSupport.read(consumer, expected, Duration.ofSeconds(30))) {
        seen.merge(
            new String(r.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8),
            1,
            Integer::sum);
      }
    }
  }

  @Test
  void published_rows_past_retention_are_deleted_in_bounded_batches() throws Exception {
    for (int i = 0; i < 25; i++) {
      UUID id = outboxRow("ret-" + i, "{}");
      rooms.exec(
          "UPDATE messenger.integration_outbox SET published_at = ? WHERE id = ?",
          Rooms.ts(asOf.minus(Duration.ofDays(i < 20 ? 8 : 1))),
          id);
    }
    UUID pending = outboxRow("ret-pending", "{}");
    RelayOptions batches =
        new RelayOptions(
            100,
            Duration.ofSeconds(1),
            Duration.ofMinutes(2),
            10,
            Duration.ofSeconds(1),
            Duration.ofMinutes(5),
            Duration.ofDays(7),
            6,
            RelayOptions.DEFAULT_SOURCE,
            Duration.ofSeconds(10),
            RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL);
    OutboxRelay relay = relay("127.0.0.1:1", Map.of(), batches);

    assertThat(relay.sweep(asOf, 2)).isEqualTo(12); // bounded: 2 statements of 6
    assertThat(relay.sweep(asOf, 100)).isEqualTo(8);
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(6);
    assertThat(
            rooms.count("SELECT count(*) FROM messenger.integration_outbox WHERE id = ?", pending))
        .isEqualTo(1);
  }

  /** An outbox count of {@link Diagnostics#DELIVERY}, as {@code status} and the gauges read it. */
  static long outbox(Rooms rooms, String column) {
    return ((Number) rooms.query(Diagnostics.DELIVERY).get(0).get(column)).longValue();
  }
}
