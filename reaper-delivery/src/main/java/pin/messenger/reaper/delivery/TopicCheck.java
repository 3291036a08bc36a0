package pin.messenger.reaper.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's start-up look at its topic (Kafka Admin API: describe the topic and its configs): it
 * exists, and its settings are not below what the contract expects ({@code
 * docs/contract/conference-ended.v1.md}, "Topic settings"). Bounded by a short timeout and never
 * failing anything: it logs one line, a WARN naming every setting below expectation, or INFO when
 * all is as expected, or INFO that it could not look (broker unreachable, no describe permission).
 */
public final class TopicCheck {
  private static final Logger log = LoggerFactory.getLogger(TopicCheck.class);

  /** Each partition holds on to three copies; fewer loses acknowledged events with a broker. */
  public static final int MIN_REPLICATION_FACTOR = 3;

  /** With {@code acks=all}, an acknowledgement means at least this many copies. */
  public static final int MIN_IN_SYNC_REPLICAS = 2;

  /** Consumers can replay at least a week (the outbox keeps published rows as long). */
  public static final Duration MIN_RETENTION = Duration.ofDays(7);

  /** Every event is kept; compaction would keep only the last event per deal (the key). */
  public static final String CLEANUP_POLICY = TopicConfig.CLEANUP_POLICY_DELETE;

  /** The longest the check may take. */
  public static final Duration TIMEOUT = Duration.ofSeconds(5);

  private TopicCheck() {}

  /**
   * Runs the check on a daemon thread with an Admin client built from {@code adminProperties}
   * (Boot's {@code spring.kafka.*}: servers, TLS, SASL) and logs its one line.
   */
  public static void inBackground(Map<String, Object> adminProperties, String topic) {
    Thread t =
        new Thread(
            () -> {
              try (Admin admin = Admin.create(withTimeouts(adminProperties))) {
                log(topic, findings(admin, topic, TIMEOUT));
              } catch (RuntimeException e) {
                log.atInfo()
                    .addKeyValue("topic", topic)
                    .addKeyValue("reason", SendOutcome.describe(e))
                    .log("topic settings not checked");
              }
            },
            "topic-check");
    t.setDaemon(true);
    t.start();
  }

  static Map<String, Object> withTimeouts(Map<String, Object> base) {
    Map<String, Object> props = new java.util.HashMap<>(base);
    int ms = (int) TIMEOUT.toMillis();
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    return props;
  }

  /** What the check found. {@code checked} is false when it could not look. */
  public record Findings(boolean checked, int partitions, List<String> belowExpectation) {}

  /** Describes {@code topic} and lists every setting below expectation; never throws. */
  public static Findings findings(Admin admin, String topic, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      // Each admin call waits only for what is left of the one deadline, so the whole check stays
      // within `timeout`.
      TopicDescription d =
          admin
              .describeTopics(Set.of(topic))
              .allTopicNames()
              .get(left(deadline), TimeUnit.NANOSECONDS)
              .get(topic);
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config config =
          admin
              .describeConfigs(Set.of(resource))
              .all()
              .get(left(deadline), TimeUnit.NANOSECONDS)
              .get(resource);
      List<String> below = new ArrayList<>();
      if (d == null) {
        return new Findings(true, 0, List.of("topic does not exist"));
      }
      int replicas = d.partitions().isEmpty() ? 0 : d.partitions().get(0).replicas().size();
      if (replicas < MIN_REPLICATION_FACTOR) {
        below.add("replication factor " + replicas + " < " + MIN_REPLICATION_FACTOR);
      }
      int minIsr = intValue(config, TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, 1);
      if (minIsr < MIN_IN_SYNC_REPLICAS) {
        below.add(
            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG + " " + minIsr + " < " + MIN_IN_SYNC_REPLICAS);
      }
      String cleanup = value(config, TopicConfig.CLEANUP_POLICY_CONFIG, CLEANUP_POLICY);
      if (!CLEANUP_POLICY.equals(cleanup)) {
        below.add(TopicConfig.CLEANUP_POLICY_CONFIG + " " + cleanup + " != " + CLEANUP_POLICY);
      }
      long retention = Long.parseLong(value(config, TopicConfig.RETENTION_MS_CONFIG, "604800000"));
      if (retention >= 0 && retention < MIN_RETENTION.toMillis()) {
        below.add(
            TopicConfig.RETENTION_MS_CONFIG + " " + retention + " < " + MIN_RETENTION.toMillis());
      }
      return new Findings(true, d.partitions().size(), below);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return new Findings(true, 0, List.of("topic does not exist"));
      }
      return new Findings(false, 0, List.of(SendOutcome.describe(e.getCause())));
    } catch (TimeoutException e) {
      return new Findings(false, 0, List.of("no answer within " + timeout.toMillis() + " ms"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Findings(false, 0, List.of("interrupted"));
    } catch (RuntimeException e) {
      return new Findings(false, 0, List.of(SendOutcome.describe(e)));
    }
  }

  static void log(String topic, Findings f) {
    if (!f.checked()) {
      log.atInfo()
          .addKeyValue("topic", topic)
          .addKeyValue("reason", String.join("; ", f.belowExpectation()))
          .log("topic settings not checked");
    } else if (f.belowExpectation().isEmpty()) {
      log.atInfo()
          .addKeyValue("topic", topic)
          .addKeyValue("partitions", f.partitions())
          .log("topic settings as expected");
    } else {
      log.atWarn()
          .addKeyValue("topic", topic)
          .addKeyValue("partitions", f.partitions())
          .addKeyValue("belowExpectation", String.join("; ", f.belowExpectation()))
          .log(
              "topic settings below what the contract expects: "
                  + String.join("; ", f.belowExpectation()));
    }
  }

  private static long left(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }

  private static String value(@Nullable Config config, String name, String orElse) {
    ConfigEntry e = config == null ? null : config.get(name);
    return e == null || e.value() == null ? orElse : e.value();
  }

  private static int intValue(@Nullable Config config, String name, int orElse) {
    return Integer.parseInt(value(config, name, Integer.toString(orElse)));
  }
}
