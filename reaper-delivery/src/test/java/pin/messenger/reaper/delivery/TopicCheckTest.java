package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.testing.KafkaTestSupport;

/** The start-up look at the topic, against a real single-broker cluster (settings below). */
class TopicCheckTest {
  static EmbeddedKafkaKraftBroker broker;

  @BeforeAll
  static void start() {
    broker = KafkaTestSupport.broker(0, ConferenceEndedEvent.TOPIC);
  }

  @AfterAll
  static void stop() {
    broker.destroy();
  }

  static Admin admin(String servers) {
    return Admin.create(TopicCheck.withTimeouts(Map.of("bootstrap.servers", servers)));
  }

  @Test
  void a_single_replica_topic_is_reported_below_the_contract_by_replication_and_min_insync() {
    try (Admin admin = admin(broker.getBrokersAsString())) {
      TopicCheck.Findings f =
          TopicCheck.findings(admin, ConferenceEndedEvent.TOPIC, Duration.ofSeconds(10));

      assertThat(f.checked()).isTrue();
      assertThat(f.partitions()).isEqualTo(3);
      assertThat(f.belowExpectation())
          .containsExactly("replication factor 1 < 3", "min.insync.replicas 1 < 2");
    }
  }

  @Test
  void a_missing_topic_is_reported_and_an_unreachable_broker_is_not_checked_within_the_timeout() {
    try (Admin admin = admin(broker.getBrokersAsString())) {
      assertThat(TopicCheck.findings(admin, "no.such.topic", Duration.ofSeconds(10)))
          .isEqualTo(new TopicCheck.Findings(true, 0, java.util.List.of("topic does not exist")));
    }
    try (Admin admin = admin("127.0.0.1:1")) {
      long t0 = System.nanoTime();
      TopicCheck.Findings f = TopicCheck.findings(admin, "any", Duration.ofSeconds(2));
      assertThat(f.checked()).isFalse();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }
  }
}
