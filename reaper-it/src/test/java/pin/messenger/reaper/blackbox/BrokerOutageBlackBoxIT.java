package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.testing.FakeMediaStack;
import pin.messenger.reaper.testing.KafkaTestSupport;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;
import pin.messenger.reaper.testing.TcpProxy;

/**
 * From outside, the packaged jar with a real broker whose network is cut: {@code run-once}'s
 * delivery pass stays bounded and the recorder stop is not held up by the relay; a later pass
 * publishes every row with the same ids; {@code run} logs an outage as a few state changes, not a
 * line per attempt.
 */
class BrokerOutageBlackBoxIT {
  private static final Pattern TIMESTAMP = Pattern.compile("\"@timestamp\":\"([^\"]+)\"");

  PostgresServer pg;
  TcpProxy network;
  FakeMediaStack media;
  EmbeddedKafkaKraftBroker broker;
  Rooms rooms;
  Map<String, String> env;

  @BeforeEach
  void start() throws Exception {
    pg = PostgresServer.startMigrated();
    network = new TcpProxy();
    media = new FakeMediaStack();
    broker = new EmbeddedKafkaKraftBroker(1, 3);
    broker.brokerProperty("advertised.listeners", "EXTERNAL://localhost:" + network.port());
    broker.afterPropertiesSet();
    network.target(Integer.parseInt(broker.getBrokersAsString().replaceAll(".*:", "")));
    broker.addTopics(ConferenceEndedEvent.TOPIC);
    env = new HashMap<>(JarRunner.database(pg));
    env.put("SPRING_KAFKA_BOOTSTRAP_SERVERS", "localhost:" + network.port());
    env.put("REAPER_RECORDER_BASE_URL", media.baseUrl().toString());
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(pg.jdbcUrl());
    ds.setUser("postgres");
    rooms = new Rooms(ds);
  }

  @AfterEach
  void stop() throws Exception {
    broker.destroy();
    media.close();
    network.close();
    pg.close();
  }

  @Test
  void run_once_with_the_broker_cut_ends_in_bound_delivers_the_recorder_stop_and_loses_nothing()
      throws Exception {
    Instant now = Instant.now();
    List<Room> deals = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      deals.add(rooms.insert(Rooms.emptyActive(now.minusSeconds(300))));
    }
    rooms.recording(deals.get(0).id, "Recording", deals.get(0).startedAt);

    network.cut();
    JarRunner.Run outage = JarRunner.run(env, "run-once");
    Instant exited = Instant.now();

    assertThat(outage.exit()).as(outage.stdout()).isZero();
    assertThat(outage.json("emptyTimeout")).isEqualTo(20);
    assertThat(outage.json("published")).isZero();
    assertThat(outage.json("recorderStopsDelivered")).isEqualTo(1);
    assertThat(media.calls()).hasSize(1);
    // From "cycle completed" to the process's exit: the delivery pass (one metadata wait of at
    // most 2 s with the broker unreachable, not one per row) and the shutdown.
    Duration afterCycle = Duration.between(timestampOf(outage.stdout(), "cycle completed"), exited);
    System.out.println(
        "measured: run-once, broker cut, 20 deals: cycle completed -> exit " + afterCycle);
    assertThat(afterCycle).isLessThan(Duration.ofSeconds(10));
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox"
                    + " WHERE published_at IS NULL AND locked_by IS NULL AND attempts = 0"))
        .isEqualTo(20);

    network.restore();
    // The first pass after the outage can still find the broker unreachable (RunOncePasses).
    RunOncePasses.untilPublished(
        20,
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
            KafkaTestSupport.consumer("localhost:" + network.port(), ConferenceEndedEvent.TOPIC);
        CloudEventDeserializer parser = new CloudEventDeserializer()) {
      for (ConsumerRecord<String, byte[]> r :
          KafkaTestSupport.readUntil(consumer, r -> true, 20, Duration.ofSeconds(30))) {
        events.add(parser.deserialize(r.topic(), r.headers(), r.value()));
      }
    }
    assertThat(events).extracting(CloudEvent::getId).containsExactlyInAnyOrderElementsOf(outboxIds);
  }

  @Test
  void a_broker_outage_under_run_is_logged_as_a_few_state_changes_not_a_line_per_attempt()
      throws Exception {
    Path output = Files.createTempFile("reaper-run-outage", ".log");
    Process run =
        JarRunner.start(
            env,
            JarRunner.JVM,
            output,
            "run",
            "--server.port=0",
            "--reaper.polling-interval=1s",
            "--reaper.relay.outage-log-interval=5s",
            // The backoff reaches this cap during the outage, so recovery is seen within seconds.
            "--reaper.relay.retry-cap=2s");
    try {
      awaitLine(output, "delivery loop started", Duration.ofSeconds(60));
      network.cut();
      Instant now = Instant.now();
      for (int i = 0; i < 5; i++) {
        rooms.insert(Rooms.emptyActive(now.minusSeconds(300)));
      }
      Thread.sleep(15_000); // the outage, while the worker reaps and its relay retries
      network.restore();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (rooms.count(
                  "SELECT count(*) FROM messenger.integration_outbox WHERE published_at IS NULL")
              > 0
          && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      assertThat(
              rooms.count(
                  "SELECT count(*) FROM messenger.integration_outbox WHERE published_at IS NOT NULL"))
          .isEqualTo(5);
    } finally {
      run.destroy();
      run.waitFor(60, TimeUnit.SECONDS);
    }
    List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
    List<String> kafkaClient =
        lines.stream().filter(l -> l.contains("\"logger\":\"org.apache.kafka")).toList();
    List<String> outage = lines.stream().filter(l -> l.contains("Kafka broker")).toList();
    System.out.println("measured: 15 s outage under run: relay outage lines " + outage.size());
    outage.forEach(System.out::println);
    assertThat(kafkaClient).as("Kafka client lines").isEmpty();
    assertThat(outage).as("relay outage lines").hasSizeBetween(2, 6);
    assertThat(outage.get(0)).contains("Kafka broker unreachable");
    assertThat(outage.get(outage.size() - 1)).contains("Kafka broker reachable again");
    // ECS nests the level and logger: {"log":{"level":"WARN","logger":"..."}}. The lines must have
    // that shape, or the two filters above and below could never match.
    assertThat(lines).anyMatch(l -> l.contains("\"log\":{\"level\":\"INFO\",\"logger\":\""));
    assertThat(lines.stream().filter(l -> l.contains("\"level\":\"WARN\"")).count())
        .as("WARN lines")
        .isLessThanOrEqualTo(6);
  }

  static Instant timestampOf(String output, String message) {
    String line =
        output
            .lines()
            .filter(l -> l.contains("\"message\":\"" + message))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no '" + message + "' line in " + output));
    Matcher m = TIMESTAMP.matcher(line);
    assertThat(m.find()).as(line).isTrue();
    return Instant.parse(m.group(1));
  }

  static void awaitLine(Path output, String message, Duration max) throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.readString(output).contains("\"message\":\"" + message)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "no '" + message + "' within " + max + ": " + Files.readString(output));
  }
}
