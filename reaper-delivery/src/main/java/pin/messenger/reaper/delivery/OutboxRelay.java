package pin.messenger.reaper.delivery;

import io.opentelemetry.api.OpenTelemetry;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import pin.messenger.reaper.schema.DeliveryTables;

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
   * Head of each key: a later row of a key is never claimable while an earlier one is pending, so
   * no relay can overtake another on a key.
   */
  static final String HEAD_OF_KEY =
      """
      AND NOT EXISTS (SELECT 1 FROM messenger.integration_outbox e
                       WHERE e.message_key = o.message_key AND e.seq < o.seq
                         AND %s)
      """
          .formatted(DeliveryTables.INTEGRATION_OUTBOX.pending("e"));

  static final String CLAIMED_COLUMNS =
      """
      o.id, o.seq, o.topic, o.message_key, o.event_type, o.payload::text AS payload, o.occurred_at,
      o.correlation_id, o.attempts, o.payload->>'conferenceId' AS subject, o.trace_parent
      """;

  /** The outbox as a leased table. */
  static final LeasedTable<OutboxRow> TABLE =
      new LeasedTable<>(
          "relay",
          DeliveryTables.INTEGRATION_OUTBOX,
          new LeasedTable.Claim<>(HEAD_OF_KEY, "o.seq", CLAIMED_COLUMNS, OutboxRelay::read),
          LeasedTable.AttemptCount.FAILURES,
          new LeasedTable.LogEvents<>(
              (row, line) -> {
                var unused =
                    line.addKeyValue("outboxId", row.id()).addKeyValue("messageKey", row.key());
              },
              Level.DEBUG,
              "outbox row published",
              "outbox row refused by the broker",
              "outbox row quarantined",
              "outbox row lease lost"));

  static final String DELETE_PUBLISHED =
      """
      DELETE FROM messenger.integration_outbox
       WHERE id IN (SELECT id FROM messenger.integration_outbox
                     WHERE published_at IS NOT NULL AND published_at < ?
                     ORDER BY published_at LIMIT ?)
      """;

  static final String STATS =
      """
      SELECT count(*) FILTER (WHERE %1$s) AS pending,
             min(occurred_at) FILTER (WHERE %1$s) AS oldest,
             count(*) FILTER (WHERE published_at IS NULL AND quarantined_at IS NOT NULL) AS quarantined
        FROM messenger.integration_outbox
      """
          .formatted(DeliveryTables.INTEGRATION_OUTBOX.pending());

  /**
   * What one step did; {@code refused} includes {@code quarantined}. {@code leaseLost}: rows this
   * relay sent but whose lease another relay had taken over, so their outcome was not written.
   */
  public record StepResult(
      int claimed, int published, int refused, int quarantined, int unavailable, int leaseLost) {}

  /**
   * Pending work as this relay's tables hold it, for tests. The gauges and {@code status} read
   * {@code Diagnostics.DELIVERY} (reaper-postgres) instead.
   */
  public record Stats(long pending, @Nullable Instant oldestPending, long quarantined) {}

  private final DataSource dataSource;
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
    this.dataSource = dataSource;
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
            TABLE,
            new LeasedRows<>(
                dataSource, TABLE, "relay-" + UUID.randomUUID(), options.statementTimeout()),
            kafka,
            options.batchSize(),
            options.lease(),
            options.maxAttempts(),
            new Backoff(options.retryBase(), options.retryCap()),
            this.observer);
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
      int n =
          BoundedTransaction.run(
              dataSource,
              options.statementTimeout(),
              c -> {
                try (PreparedStatement ps = c.prepareStatement(DELETE_PUBLISHED)) {
                  ps.setObject(1, LeasedRows.ts(now.minus(options.retention())));
                  ps.setInt(2, options.retentionBatch());
                  return ps.executeUpdate();
                }
              });
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

  public Stats stats() throws SQLException {
    return BoundedTransaction.run(
        dataSource,
        options.statementTimeout(),
        c -> {
          try (PreparedStatement ps = c.prepareStatement(STATS);
              ResultSet rs = ps.executeQuery()) {
            rs.next();
            OffsetDateTime oldest = rs.getObject("oldest", OffsetDateTime.class);
            return new Stats(
                rs.getLong("pending"),
                oldest == null ? null : oldest.toInstant(),
                rs.getLong("quarantined"));
          }
        });
  }

  private static OutboxRow read(ResultSet rs) throws SQLException {
    return new OutboxRow(
        rs.getObject("id", UUID.class),
        rs.getLong("seq"),
        rs.getString("topic"),
        rs.getString("message_key"),
        rs.getString("event_type"),
        rs.getString("payload"),
        rs.getObject("occurred_at", OffsetDateTime.class).toInstant(),
        rs.getString("correlation_id"),
        rs.getInt("attempts"),
        rs.getString("subject"),
        rs.getString("trace_parent"));
  }
}
