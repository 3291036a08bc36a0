package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TcpProxy;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * The relay against a real broker behind a proxy that cuts or stalls the network: a step is bounded
 * whatever the broker does, releases what it could not send at once, and never outlives its lease.
 * Producers are built with the production settings ({@link OutboxRelay#producerProperties}).
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RelayBrokerOutageTest {
  static final String TOPIC = ConferenceEndedEvent.TOPIC;
  static TestDatabase db;
  static Rooms rooms;
  static EmbeddedKafkaKraftBroker broker;
  static TcpProxy network;

  @BeforeAll
  static void start() throws Exception {
    db = TestDatabase.create();
    rooms = new Rooms(db.dataSource());
    network = new TcpProxy();
    broker = new EmbeddedKafkaKraftBroker(1, 3);
    broker.brokerProperty("advertised.listeners", "EXTERNAL://localhost:" + network.port());
    broker.afterPropertiesSet();
    network.target(Integer.parseInt(broker.getBrokersAsString().replaceAll(".*:", "")));
    broker.addTopics(TOPIC);
  }

  @AfterAll
  static void stop() throws Exception {
    network.close();
    broker.destroy();
    db.close();
  }

  @BeforeEach
  void clean() throws Exception {
    rooms.truncateAll();
    network.unstall();
    network.restore();
  }

  /** Lease 6 s: statement timeout 0.6 s, so the send must end 2.4 s before the lease does. */
  static RelayOptions options(Duration lease, Duration sendTimeout) {
    return new RelayOptions(
        100,
        Duration.ofSeconds(1),
        lease,
        10,
        Duration.ofSeconds(1),
        Duration.ofMinutes(5),
        Duration.ofDays(7),
        1000,
        RelayOptions.DEFAULT_SOURCE,
        sendTimeout,
        RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL);
  }

  static OutboxRelay relay(RelayOptions o, DeliveryObserver observer) {
    Map<String, Object> props =
        OutboxRelay.producerProperties(
            Map.of("bootstrap.servers", "localhost:" + network.port()), o);
    return new OutboxRelay(db.dataSource(), () -> new KafkaProducer<>(props), o, observer);
  }

  static List<UUID> rows(int n) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      UUID id = UUID.randomUUID();
      rooms.exec(
          "INSERT INTO messenger.integration_outbox (id, topic, message_key, event_type, payload, occurred_at)"
              + " VALUES (?, ?, ?, 'conference-ended.v1', '{}'::jsonb, ?)",
          id,
          TOPIC,
          "deal-" + UUID.randomUUID(),
          Rooms.ts(Instant.now()));
      ids.add(id);
    }
    return ids;
  }

  static long pendingUnleased() {
    return rooms.count(
        "SELECT count(*) FROM messenger.integration_outbox"
            + " WHERE published_at IS NULL AND locked_by IS NULL AND attempts = 0");
  }

  static final class Reach implements DeliveryObserver {
    final List<Boolean> changes = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<Integer> lost = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void brokerReachable(boolean up) {
      changes.add(up);
    }

    @Override
    public void leaseLost(String delivery, int rows) {
      lost.add(rows);
    }
  }

  @Test
  void a_relay_that_cannot_reach_the_broker_releases_twenty_rows_at_once_instead_of_one_by_one()
      throws Exception {
    rows(20);
    network.cut();
    RelayOptions o = options(Duration.ofMinutes(2), Duration.ofSeconds(30));
    Reach reach = new Reach();
    try (OutboxRelay relay = relay(o, reach)) {
      long t0 = System.nanoTime();
      OutboxRelay.StepResult step = relay.relayOnce(Instant.now());
      Duration took = Duration.ofNanos(System.nanoTime() - t0);

      assertThat(step.unavailable()).isEqualTo(20);
      // One metadata wait (max.block.ms, 2 s), not 20 of them.
      assertThat(took).isLessThan(o.maxBlock().plusSeconds(2));
      assertThat(reach.changes).containsExactly(false);

      network.restore();
      int published = 0;
      for (int i = 0; i < 10 && published < 20; i++) {
        published += relay.relayOnce(Instant.now()).published();
        Thread.sleep(200);
      }
      assertThat(published).isEqualTo(20);
      assertThat(reach.changes).containsExactly(false, true);
    }
    assertThat(pendingUnleased()).isZero();
  }

  @Test
  void a_stalled_broker_ends_the_step_and_releases_its_rows_before_the_lease_expires()
      throws Exception {
    RelayOptions o = options(Duration.ofSeconds(6), Duration.ofSeconds(3));
    Reach reach = new Reach();
    try (OutboxRelay relay = relay(o, reach)) {
      rows(1);
      assertThat(relay.relayOnce(Instant.now()).published()).isEqualTo(1); // metadata is warm
      List<UUID> ids = rows(10);
      network.stall();
      // What another relay would see all along: a lease still held but already expired (it
      // could claim the row while this step still sends it). Must never happen.
      AtomicBoolean stepRunning = new AtomicBoolean(true);
      CompletableFuture<Long> expiredWhileHeld =
          CompletableFuture.supplyAsync(
              () -> {
                long seen = 0;
                try {
                  while (stepRunning.get()) {
                    seen +=
                        rooms.count(
                            "SELECT count(*) FROM messenger.integration_outbox"
                                + " WHERE locked_by IS NOT NULL AND locked_until < clock_timestamp()");
                    Thread.sleep(50);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return seen;
              });
      long t0 = System.nanoTime();
      OutboxRelay.StepResult step = relay.relayOnce(Instant.now());
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      stepRunning.set(false);

      assertThat(expiredWhileHeld.get(10, TimeUnit.SECONDS)).isZero();
      assertThat(step.claimed()).isEqualTo(10);
      assertThat(step.unavailable()).isEqualTo(10);
      assertThat(step.leaseLost()).isZero();
      assertThat(reach.lost).isEmpty();
      assertThat(took).isLessThan(o.lease());
      assertThat(pendingUnleased()).isEqualTo(ids.size());
      network.unstall();
    }
  }

  @Test
  void stop_ends_a_step_stuck_on_a_stalled_broker_within_the_stop_grace_and_releases_the_rows()
      throws Exception {
    RelayOptions o = options(Duration.ofMinutes(2), Duration.ofSeconds(60));
    try (OutboxRelay relay = relay(o, DeliveryObserver.NONE)) {
      rows(1);
      assertThat(relay.relayOnce(Instant.now()).published()).isEqualTo(1);
      rows(5);
      network.stall();
      CountDownLatch started = new CountDownLatch(1);
      CompletableFuture<OutboxRelay.StepResult> step =
          CompletableFuture.supplyAsync(
              () -> {
                started.countDown();
                try {
                  return relay.relayOnce(Instant.now());
                } catch (java.sql.SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      started.await();
      Thread.sleep(500); // the records are sent and waiting for acknowledgements
      long t0 = System.nanoTime();
      relay.stop();
      OutboxRelay.StepResult r = step.get(30, TimeUnit.SECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - t0);

      assertThat(took).isLessThan(KafkaSend.STOP_GRACE.plusSeconds(2));
      assertThat(r.published() + r.unavailable()).isEqualTo(5);
      network.unstall();
    }
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE locked_by IS NOT NULL"))
        .isZero();
  }
}
