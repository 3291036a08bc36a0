package pin.messenger.reaper.delivery;

import io.opentelemetry.api.OpenTelemetry;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes {@code messenger.integration_outbox} to Kafka after commit, at least once, never
 * inverting the order of one message key. A step claims the head row of each key (leased, so
 * several relays can run), sends them ({@link KafkaSend}), and marks only what the broker
 * acknowledged ({@link LeasedDelivery}). A record the broker will never take is quarantined after
 * {@code max-attempts}; while the broker is unreachable nothing is counted against the rows and the
 * loop backs off.
 */
public final class OutboxRelay implements DeliveryLoop.Step, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

  /**
   * What one step did; {@code refused} includes {@code quarantined}. {@code leaseLost}: rows this
   * relay sent but whose lease another relay had taken over, so their outcome was not written.
   */
  public record StepResult(
      int claimed, int published, int refused, int quarantined, int unavailable, int leaseLost) {}

  private final DeliveryStore store;
  private final RelayOptions options;
  private final DeliveryObserver observer;
  private final KafkaSend kafka;
  private final LeasedDelivery<OutboxRow> delivery;

  public OutboxRelay(
      DataSource dataSource,
      Supplier<Producer<String, byte[]>> producers,
      RelayOptions options,
      DeliveryObserver observer) {
    this(dataSource, producers, options, observer, Clock.systemUTC());
  }

  /**
   * A relay whose producers come from {@code producers} (build them with {@link
   * #producerProperties}); {@code clock} stamps {@code published_at} when the broker acknowledges.
   */
  public OutboxRelay(
      DataSource dataSource,
      Supplier<Producer<String, byte[]>> producers,
      RelayOptions options,
      DeliveryObserver observer,
      Clock clock) {
    this(dataSource, producers, options, observer, clock, OpenTelemetry.noop());
  }

  /**
   * As above, with a producer span per record from {@code openTelemetry}, continuing the trace
   * context stored on its row ({@link DeliveryTracing}); {@link OpenTelemetry#noop()} records none.
   */
  public OutboxRelay(
      DataSource dataSource,
      Supplier<Producer<String, byte[]>> producers,
      RelayOptions options,
      DeliveryObserver observer,
      Clock clock,
      OpenTelemetry openTelemetry) {
    this.store = new DeliveryStore(dataSource, options.statementTimeout());
    this.options = options;
    this.observer = observer == null ? DeliveryObserver.NONE : observer;
    this.kafka =
        new KafkaSend(
            producers,
            options.source(),
            options.sendTimeout(),
            clock,
            new Reachability("Kafka broker", clock, options.outageLogInterval(), this.observer),
            new DeliveryTracing(openTelemetry));
    this.delivery =
        new LeasedDelivery<>(
            store.outbox("relay-" + UUID.randomUUID()), kafka, options, this.observer);
  }

  @Override
  public DeliveryLoop.Outcome run(Instant now) throws SQLException {
    StepResult r = relayOnce(now);
    if (r.unavailable() > 0) {
      return DeliveryLoop.Outcome.UNAVAILABLE;
    }
    return r.claimed() >= options.batchSize()
        ? DeliveryLoop.Outcome.MORE
        : DeliveryLoop.Outcome.IDLE;
  }

  /**
   * The producer settings the relay's bounds rely on, over {@code base} (servers, TLS, SASL, client
   * id): {@code acks=all} and idempotence for at-least-once without reordering, and {@code
   * max.block.ms} from {@link RelayOptions#maxBlock()} (always set: a larger one would let one
   * {@code send()} outlast the step). Request and delivery timeouts derive from the send timeout
   * unless {@code base} sets them (the step's deadline bounds them anyway).
   */
  public static Map<String, Object> producerProperties(
      Map<String, Object> base, RelayOptions options) {
    Map<String, Object> props = new HashMap<>(base);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) options.maxBlock().toMillis());
    // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
    int timeout = (int) options.sendTimeout().toMillis();
    props.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeout);
    props.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeout / 2, 10_000));
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "conference-room-reaper");
    return props;
  }

  /** Claims, sends and marks one batch. */
  public StepResult relayOnce(Instant now) throws SQLException {
    return relayOnce(now, Long.MAX_VALUE);
  }

  /**
   * Claims, sends and marks one batch, sending nothing after {@code deadlineNanos} (a {@link
   * System#nanoTime()} value): for a bounded pass such as {@code run-once}'s.
   */
  public StepResult relayOnce(Instant now, long deadlineNanos) throws SQLException {
    LeasedDelivery.Result r = delivery.step(now, deadlineNanos);
    if (r.claimed() > 0) {
      observer.relayed(r.delivered(), r.failed(), r.gaveUp(), r.unavailable());
    }
    return new StepResult(
        r.claimed(), r.delivered(), r.failed(), r.gaveUp(), r.unavailable(), r.leaseLost());
  }

  /**
   * Ends a running step early (called from another thread, e.g. on SIGTERM): nothing more is sent,
   * what was sent is awaited for a few seconds at most, the rest is released. Call {@link #close()}
   * after the step ended.
   */
  public void stop() {
    kafka.stop();
  }

  /** Closes the producer (bounded), flushing what it holds. */
  @Override
  public void close() {
    kafka.close();
  }

  /** Deletes published rows older than the retention, in bounded batches; returns how many. */
  public int sweep(Instant now, int maxBatches) throws SQLException {
    int total = 0;
    for (int i = 0; i < maxBatches; i++) {
      int n = store.deletePublishedOutbox(now.minus(options.retention()), options.retentionBatch());
      total += n;
      if (n < options.retentionBatch()) {
        break;
      }
    }
    if (total > 0) {
      log.atInfo()
          .addKeyValue("deleted", total)
          .log("published outbox rows past retention deleted");
    }
    return total;
  }
}
