package pin.messenger.reaper.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.ReaperLoop;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.delivery.Backoff;
import pin.messenger.reaper.delivery.DeliveryLoop;
import pin.messenger.reaper.delivery.DeliveryObserver;
import pin.messenger.reaper.delivery.OutboxRelay;
import pin.messenger.reaper.delivery.RecorderOptions;
import pin.messenger.reaper.delivery.RecorderStopDispatcher;
import pin.messenger.reaper.delivery.RelayOptions;
import pin.messenger.reaper.store.Diagnostics;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.FakeMediaStack;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.MessengerLoad;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TcpProxy;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * Scenario 5, fast version: while four runners reap under live commands, the Kafka broker and the
 * media stack both go away for several seconds. Once they are back, every conference-ended row
 * reaches the topic (duplicates only with the same ce_id) and every recorder stop request reaches
 * the media stack; the invariants hold.
 */
class OutagesDuringManyRunnersIT {

  @Test
  void kafka_and_media_stack_outages_lose_nothing() throws Exception {
    try (TestDatabase db = TestDatabase.create();
        TcpProxy network = new TcpProxy();
        FakeMediaStack media = new FakeMediaStack()) {
      EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 3);
      broker.brokerProperty("advertised.listeners", "EXTERNAL://localhost:" + network.port());
      broker.afterPropertiesSet();
      List<AutoCloseable> closing = new ArrayList<>();
      try {
        network.target(Integer.parseInt(broker.getBrokersAsString().replaceAll(".*:", "")));
        broker.addTopics(ConferenceEndedEvent.TOPIC);
        String servers = "localhost:" + network.port();
        Rooms rooms = new Rooms(db.dataSource());
        Instant start = Instant.now();
        List<UUID> ids = MessengerLoad.seed(rooms, 4_000, start);
        for (UUID id : ids.subList(0, 400)) {
          rooms.recording(id, "Recording", start.minusSeconds(3600));
        }

        HikariDataSource deliveryPool = pool(db);
        closing.add(deliveryPool);
        OutboxRelay relay =
            new OutboxRelay(
                deliveryPool,
                () -> new KafkaProducer<>(producer(servers)),
                new RelayOptions(
                    200,
                    Duration.ofMillis(200),
                    Duration.ofSeconds(30),
                    10,
                    Duration.ofMillis(200),
                    Duration.ofSeconds(2),
                    Duration.ofDays(7),
                    1000,
                    RelayOptions.DEFAULT_SOURCE,
                    Duration.ofSeconds(3),
                    RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL),
                DeliveryObserver.NONE);
        closing.add(relay);
        RecorderStopDispatcher recorder =
            new RecorderStopDispatcher(
                deliveryPool,
                new RecorderOptions(
                    media.baseUrl(),
                    Duration.ofMillis(500),
                    Duration.ofSeconds(1),
                    100,
                    Duration.ofMillis(200),
                    Duration.ofSeconds(10),
                    50,
                    Duration.ofMillis(200),
                    Duration.ofSeconds(2),
                    RecorderOptions.Kind.HTTP,
                    RecorderOptions.LiveKit.NONE,
                    RecorderOptions.Jibri.NONE),
                DeliveryObserver.NONE);
        DeliveryLoop relayLoop =
            new DeliveryLoop(
                "relay",
                relay,
                Clock.systemUTC(),
                Duration.ofMillis(200),
                new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2)));
        DeliveryLoop recorderLoop =
            new DeliveryLoop(
                "recorder",
                recorder,
                Clock.systemUTC(),
                Duration.ofMillis(200),
                new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2)));

        List<ReaperLoop> loops = new ArrayList<>();
        try (MessengerLoad load = new MessengerLoad(db.dataSource(), ids).start(4, 21)) {
          for (int i = 0; i < 4; i++) {
            HikariDataSource pool = pool(db);
            closing.add(pool);
            ReaperLoop loop =
                new ReaperLoop(
                    new ConferenceRoomReaper(
                        new PostgresReaperStore(pool),
                        ManyRunnersIT.OPTIONS,
                        ReaperObserver.NONE,
                        List.of()),
                    null);
            loops.add(loop);
            loop.start();
          }
          relayLoop.start();
          recorderLoop.start();
          Thread.sleep(2_000);
          network.cut(); // Kafka unreachable
          media.stop(); // media stack down
          Thread.sleep(4_000);
          network.restore();
          media.restart();
          Thread.sleep(3_000);
        } finally {
          loops.forEach(ReaperLoop::close);
        }
        ConferenceRoomReaper settle =
            new ConferenceRoomReaper(
                new PostgresReaperStore(db.dataSource()),
                ManyRunnersIT.OPTIONS,
                ReaperObserver.NONE,
                List.of());
        Instant settledAt;
        CycleResult r;
        do {
          settledAt = Instant.now();
          r = settle.runOnce(settledAt, Cancellation.NONE);
        } while (r.reaped() > 0);
        relayLoop.wakeUp();
        recorderLoop.wakeUp();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while ((outbox(rooms, "outbox_pending") > 0 || pendingRecorderStops(rooms) > 0)
            && System.nanoTime() < deadline) {
          Thread.sleep(200); // waiting for the delivery loops to drain the outboxes
        }
        relayLoop.close();
        recorderLoop.close();

        assertThat(outbox(rooms, "outbox_pending")).isZero();
        assertThat(outbox(rooms, "outbox_quarantined")).isZero();
        assertThat(pendingRecorderStops(rooms)).isZero();
        Set<String> outboxIds =
            rooms.query("SELECT id FROM messenger.integration_outbox").stream()
                .map(m -> m.get("id").toString())
                .collect(Collectors.toSet());
        Set<String> seen = new HashSet<>();
        int records = 0;
        try (KafkaConsumer<String, byte[]> consumer = consumer(servers)) {
          long readUntil = System.nanoTime() + Duration.ofSeconds(60).toNanos();
          while (!seen.containsAll(outboxIds) && System.nanoTime() < readUntil) {
            for (ConsumerRecord<String, byte[]> rec : consumer.poll(Duration.ofMillis(500))) {
              seen.add(
                  new String(rec.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8));
              records++;
            }
          }
        }
        Set<String> stopIds =
            rooms.query("SELECT id FROM messenger.recorder_stop_requests").stream()
                .map(m -> m.get("id").toString())
                .collect(Collectors.toSet());
        Set<String> calledKeys =
            media.calls().stream()
                .map(FakeMediaStack.Call::idempotencyKey)
                .collect(Collectors.toSet());

        InvariantChecker checker = new InvariantChecker(db.dataSource());
        // The SLO is ManyRunnersIT's subject; here rooms that become due queue behind the seeded
        // backlog (claims are
        // oldest first), so only the other invariants are checked (sloFrom = the end of the run).
        List<String> violations =
            checker.violations(
                settledAt,
                settledAt,
                ManyRunnersIT.OPTIONS.emptyRoomGrace(),
                ManyRunnersIT.OPTIONS.provisionTimeout(),
                ManyRunnersIT.OPTIONS.staleLiveTimeout(),
                ManyRunnersIT.OPTIONS.pollingInterval(),
                ManyRunnersIT.TOLERANCE);
        System.out.printf(
            "scenario outages: conferences=%d runners=4 outboxRows=%d records=%d distinctCeIds=%d"
                + " stopRequests=%d mediaCalls=%d distinctKeys=%d violations=%d%n",
            ids.size(),
            outboxIds.size(),
            records,
            seen.size(),
            stopIds.size(),
            media.calls().size(),
            calledKeys.size(),
            violations.size());
        assertThat(outboxIds).isNotEmpty();
        assertThat(seen)
            .isEqualTo(outboxIds); // everything delivered; any duplicate carried a known ce_id
        assertThat(stopIds).isNotEmpty();
        assertThat(calledKeys).containsAll(stopIds);
        assertThat(violations).isEmpty();
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
        broker.destroy();
      }
    }
  }

  /** An outbox count of {@link Diagnostics#DELIVERY}, as {@code status} and the gauges read it. */
  static long outbox(Rooms rooms, String column) {
    return ((Number) rooms.query(Diagnostics.DELIVERY).get(0).get(column)).longValue();
  }

  private static long pendingRecorderStops(Rooms rooms) {
    return rooms.count(
        "SELECT count(*) FROM messenger.recorder_stop_requests"
            + " WHERE delivered_at IS NULL AND gave_up_at IS NULL");
  }

  static HikariDataSource pool(TestDatabase db) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(db.url());
    pool.setUsername(db.user());
    pool.setPassword(db.password());
    pool.setMaximumPoolSize(3);
    return pool;
  }

  static Map<String, Object> producer(String servers) {
    return Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        servers,
        ProducerConfig.ACKS_CONFIG,
        "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
        true,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
        StringSerializer.class,
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
        ByteArraySerializer.class,
        ProducerConfig.MAX_BLOCK_MS_CONFIG,
        1500,
        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
        1500,
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
        3000,
        ProducerConfig.LINGER_MS_CONFIG,
        5);
  }

  static KafkaConsumer<String, byte[]> consumer(String servers) {
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                servers,
                ConsumerConfig.GROUP_ID_CONFIG,
                "outage-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                2000,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class));
    consumer.subscribe(List.of(ConferenceEndedEvent.TOPIC));
    return consumer;
  }
}
