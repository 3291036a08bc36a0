package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.testing.ContractSchema;
import pin.messenger.reaper.testing.FakeMediaStack;
import pin.messenger.reaper.testing.KafkaTestSupport;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;
import pin.messenger.reaper.testing.TcpProxy;

/**
 * From outside: rows written by {@code run-once} of the packaged jar reach a real broker (read back
 * with a stock Kafka consumer and the stock CloudEvents parser) and a real HTTP listener, with
 * nothing lost across a broker outage that starts before the run and ends after it.
 */
class DeliveryBlackBoxIT {

  @Test
  void run_once_rows_reach_the_topic_and_the_recorder_and_survive_a_broker_outage()
      throws Exception {
    try (PostgresServer pg = PostgresServer.startMigrated();
        TcpProxy network = new TcpProxy();
        FakeMediaStack media = new FakeMediaStack()) {
      EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 3);
      broker.brokerProperty("advertised.listeners", "EXTERNAL://localhost:" + network.port());
      broker.afterPropertiesSet();
      try {
        network.target(Integer.parseInt(broker.getBrokersAsString().replaceAll(".*:", "")));
        broker.addTopics(ConferenceEndedEvent.TOPIC);
        Map<String, String> env = new HashMap<>(JarRunner.database(pg));
        env.put("SPRING_KAFKA_BOOTSTRAP_SERVERS", "localhost:" + network.port());
        env.put("REAPER_RECORDER_BASE_URL", media.baseUrl().toString());

        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(pg.jdbcUrl());
        ds.setUser("postgres");
        Rooms rooms = new Rooms(ds);
        Instant now = Instant.now();
        Room empty = rooms.insert(Rooms.emptyActive(now.minusSeconds(300)));
        UUID recording = rooms.recording(empty.id, "Recording", empty.startedAt);
        Room stale = rooms.insert(Rooms.occupied(now.minus(Duration.ofHours(5)), 2));
        rooms.insert(Rooms.provisioning(now.minusSeconds(600)));

        network.cut(); // the broker is unreachable for the whole first run
        JarRunner.Run duringOutage =
            JarRunner.run(env, "run-once", "--reaper.relay.send-timeout=3s");
        assertThat(duringOutage.exit()).as(duringOutage.stdout()).isZero();
        assertThat(duringOutage.json("emptyTimeout")).isEqualTo(1);
        assertThat(duringOutage.json("staleTimeout")).isEqualTo(1);
        assertThat(duringOutage.json("provisionFailed")).isEqualTo(1);
        assertThat(duringOutage.json("published")).isZero();
        assertThat(duringOutage.json("recorderStopsDelivered")).isEqualTo(1);
        assertThat(
                rooms.count(
                    "SELECT count(*) FROM messenger.integration_outbox WHERE published_at IS NULL"))
            .isEqualTo(2);

        network.restore();
        // The first pass after the outage can still find the broker unreachable (RunOncePasses).
        RunOncePasses.untilPublished(
            2,
            () -> {
              JarRunner.Run after = JarRunner.run(env, "run-once");
              assertThat(after.exit()).as(after.stdout()).isZero();
              return new RunOncePasses.Pass(after.json("published"), after.stdout());
            });

        Set<String> outboxIds =
            rooms.query("SELECT id FROM messenger.integration_outbox").stream()
                .map(r -> r.get("id").toString())
                .collect(Collectors.toSet());
        List<CloudEvent> events = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                KafkaTestSupport.consumer(
                    "localhost:" + network.port(), ConferenceEndedEvent.TOPIC);
            CloudEventDeserializer parser = new CloudEventDeserializer()) {
          long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
          while (events.size() < 2 && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
              CloudEvent e = parser.deserialize(r.topic(), r.headers(), r.value());
              ContractSchema.assertValid(
                  new String(e.getData().toBytes(), java.nio.charset.StandardCharsets.UTF_8));
              assertThat(r.key()).isIn(empty.dealId.toString(), stale.dealId.toString());
              events.add(e);
            }
          }
        }
        assertThat(events)
            .extracting(CloudEvent::getId)
            .containsExactlyInAnyOrderElementsOf(outboxIds);
        assertThat(events)
            .extracting(CloudEvent::getSubject)
            .containsExactlyInAnyOrder(empty.id.toString(), stale.id.toString());
        assertThat(events)
            .allSatisfy(
                e -> assertThat(e.getType()).isEqualTo("pin.messenger.conference-ended.v1"));

        assertThat(media.calls())
            .singleElement()
            .satisfies(
                call -> {
                  assertThat(call.path()).isEqualTo("/media/v1/recordings/" + recording + "/stop");
                  assertThat(call.idempotencyKey()).isNotBlank();
                });
      } finally {
        broker.destroy();
      }
    }
  }
}
