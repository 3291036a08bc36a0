package pin.messenger.reaper.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/** An in-process KRaft broker, and stock Kafka clients for it. */
public final class KafkaTestSupport {
  private KafkaTestSupport() {}

  public static EmbeddedKafkaKraftBroker broker(int port, String... topics) {
    EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 3, topics);
    if (port > 0) {
      broker.kafkaPorts(port);
    }
    broker.afterPropertiesSet();
    return broker;
  }

  public static Producer<String, byte[]> producer(String servers, Map<String, Object> extra) {
    Map<String, Object> props = new java.util.HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2000);
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 4000);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
    props.putAll(extra);
    return new KafkaProducer<>(props);
  }

  public static KafkaConsumer<String, byte[]> consumer(String servers, String topic) {
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                servers,
                ConsumerConfig.GROUP_ID_CONFIG,
                "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class));
    consumer.subscribe(List.of(topic));
    return consumer;
  }

  /**
   * Polls until {@code expected} records matching {@code filter} arrived or the deadline passed.
   */
  public static List<ConsumerRecord<String, byte[]>> readUntil(
      KafkaConsumer<String, byte[]> consumer,
      java.util.function.Predicate<ConsumerRecord<String, byte[]>> filter,
      int expected,
      Duration max) {
    List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
    long deadline = System.nanoTime() + max.toNanos();
    while (out.size() < expected && System.nanoTime() < deadline) {
      pollInto(consumer, Duration.ofMillis(200), filter, out);
    }
    // One more poll: a duplicate would show up here.
    pollInto(consumer, Duration.ofMillis(500), filter, out);
    return out;
  }

  private static void pollInto(
      KafkaConsumer<String, byte[]> consumer,
      Duration timeout,
      java.util.function.Predicate<ConsumerRecord<String, byte[]>> filter,
      List<ConsumerRecord<String, byte[]>> out) {
    consumer
        .poll(timeout)
        .forEach(
            r -> {
              if (filter.test(r)) {
                out.add(r);
              }
            });
  }

  /** Polls until {@code expected} records arrived or the deadline passed. */
  public static List<ConsumerRecord<String, byte[]>> read(
      KafkaConsumer<String, byte[]> consumer, int expected, Duration max) {
    List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
    long deadline = System.nanoTime() + max.toNanos();
    while (out.size() < expected && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(out::add);
    }
    return out;
  }
}
