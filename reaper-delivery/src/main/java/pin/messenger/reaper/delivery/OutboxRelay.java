package pin.messenger.reaper.delivery;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes {@code messenger.integration_outbox} to Kafka after commit, at least once, never
 * inverting the order of one message key. A step claims the head row of each key (leased, so
 * several relays can run), sends them, and marks only what the broker acknowledged. A record the
 * broker will never take is quarantined after {@code max-attempts}; while the broker is unreachable
 * nothing is counted against the rows and the loop backs off.
 */
public final class OutboxRelay implements DeliveryLoop.Step, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

  /**
   * Head of each key: the oldest pending row of its key, not in backoff, not leased to a live
   * relay. A later row of a key is never claimable while an earlier one is pending, so no relay can
   * overtake another on a key.
   */
  static final String CLAIM =
      """
      WITH heads AS (
        SELECT o.id FROM messenger.integration_outbox o
         WHERE o.published_at IS NULL AND o.quarantined_at IS NULL
           AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
           AND (o.locked_until IS NULL OR o.locked_until < ?)
           AND NOT EXISTS (SELECT 1 FROM messenger.integration_outbox e
                            WHERE e.message_key = o.message_key AND e.seq < o.seq
                              AND e.published_at IS NULL AND e.quarantined_at IS NULL)
         ORDER BY o.seq
         LIMIT ?
           FOR UPDATE SKIP LOCKED
      )
      UPDATE messenger.integration_outbox o
         SET locked_until = ?, locked_by = ?
        FROM heads
       WHERE o.id = heads.id
      RETURNING o.id, o.seq, o.topic, o.message_key, o.event_type, o.payload::text AS payload, o.occurred_at,
                o.correlation_id, o.attempts, o.payload->>'conferenceId' AS subject
      """;

  static final String MARK_PUBLISHED =
      """
      UPDATE messenger.integration_outbox
         SET published_at = ?, locked_until = NULL, locked_by = NULL, last_error = NULL
       WHERE id = ANY(?) AND locked_by = ?
      """;

  /**
   * A failure of the row itself: counts an attempt, backs the row off, quarantines it after max
   * attempts.
   */
  static final String MARK_REFUSED =
      """
      UPDATE messenger.integration_outbox
         SET attempts = attempts + 1, last_error = ?, locked_until = NULL, locked_by = NULL,
             next_attempt_at = ?,
             quarantined_at = CASE WHEN attempts + 1 >= ? THEN ?::timestamptz END
       WHERE id = ? AND locked_by = ?
      RETURNING quarantined_at IS NOT NULL
      """;

  /**
   * The broker was unreachable: give the rows back untouched but for the error an operator can
   * read.
   */
  static final String RELEASE =
      """
      UPDATE messenger.integration_outbox
         SET locked_until = NULL, locked_by = NULL, last_error = ?
       WHERE id = ANY(?) AND locked_by = ?
      """;

  static final String DELETE_PUBLISHED =
      """
      DELETE FROM messenger.integration_outbox
       WHERE id IN (SELECT id FROM messenger.integration_outbox
                     WHERE published_at IS NOT NULL AND published_at < ?
                     ORDER BY published_at LIMIT ?)
      """;

  static final String STATS =
      """
      SELECT count(*) FILTER (WHERE quarantined_at IS NULL) AS pending,
             min(occurred_at) FILTER (WHERE quarantined_at IS NULL) AS oldest,
             count(*) FILTER (WHERE quarantined_at IS NOT NULL) AS quarantined
        FROM messenger.integration_outbox WHERE published_at IS NULL
      """;

  /** CloudEvents spec version of the binary-mode headers. */
  static final String SPEC_VERSION = "1.0";

  /** What one step did. */
  public record StepResult(
      int claimed, int published, int refused, int quarantined, int unavailable) {}

  /** Pending work, for gauges and {@code status}. */
  public record Stats(long pending, Instant oldestPending, long quarantined) {}

  /**
   * After this many steps in a row that could not reach the broker, the producer is replaced: a
   * producer can be left in a state it does not recover from by itself (its idempotence session or
   * metadata outlived the broker's).
   */
  static final int RENEW_PRODUCER_AFTER = 3;

  private final DataSource dataSource;
  private final java.util.function.Supplier<Producer<String, byte[]>> producers;
  private Producer<String, byte[]> producer;
  private int unavailableSteps;
  private final RelayOptions options;
  private final DeliveryObserver observer;
  private final String relayId = "relay-" + UUID.randomUUID();
  private final Backoff rowBackoff;
  private final long sendTimeoutMillis;

  public OutboxRelay(
      DataSource dataSource,
      java.util.function.Supplier<Producer<String, byte[]>> producers,
      RelayOptions options,
      DeliveryObserver observer,
      java.time.Duration sendTimeout) {
    this.dataSource = dataSource;
    this.producers = producers;
    this.options = options;
    this.observer = observer == null ? DeliveryObserver.NONE : observer;
    this.rowBackoff = new Backoff(options.retryBase(), options.retryCap());
    this.sendTimeoutMillis = sendTimeout.toMillis();
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

  /** Claims, sends and marks one batch. */
  public StepResult relayOnce(Instant now) throws SQLException {
    List<Row> rows = claim(now);
    if (rows.isEmpty()) {
      return new StepResult(0, 0, 0, 0, 0);
    }
    if (producer == null) {
      producer = producers.get();
    }
    List<Future<RecordMetadata>> sends = new ArrayList<>(rows.size());
    for (Row row : rows) {
      sends.add(producer.send(record(row)));
    }
    List<UUID> published = new ArrayList<>();
    List<UUID> unavailable = new ArrayList<>();
    String unavailableError = null;
    int refused = 0;
    int quarantined = 0;
    for (int i = 0; i < rows.size(); i++) {
      Row row = rows.get(i);
      try {
        sends.get(i).get(sendTimeoutMillis, TimeUnit.MILLISECONDS);
        published.add(row.id);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (isRefusal(cause)) {
          refused++;
          if (markRefused(row, now, describe(cause))) {
            quarantined++;
          }
        } else {
          unavailable.add(row.id);
          unavailableError = describe(cause);
        }
      } catch (java.util.concurrent.TimeoutException e) {
        unavailable.add(row.id);
        unavailableError = "no acknowledgement within " + sendTimeoutMillis + " ms";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        unavailable.add(row.id);
        unavailableError = "interrupted while waiting for the broker";
      }
    }
    markPublished(published, now);
    if (!unavailable.isEmpty()) {
      release(unavailable, unavailableError);
      unavailableSteps++;
      if (unavailableSteps >= RENEW_PRODUCER_AFTER) {
        log.atWarn()
            .addKeyValue("reason", unavailableError)
            .log("broker unreachable for several steps; renewing the producer");
        closeProducer();
        unavailableSteps = 0;
      }
    } else {
      unavailableSteps = 0;
    }
    observer.relayed(published.size(), refused, quarantined, unavailable.size());
    if (!published.isEmpty()) {
      log.atDebug().addKeyValue("published", published.size()).log("outbox rows published");
    }
    return new StepResult(rows.size(), published.size(), refused, quarantined, unavailable.size());
  }

  /** Closes the producer, flushing what it holds. */
  @Override
  public void close() {
    closeProducer();
  }

  private void closeProducer() {
    if (producer != null) {
      try {
        producer.close(java.time.Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.atWarn().setCause(e).log("producer did not close cleanly");
      }
      producer = null;
    }
  }

  /** Deletes published rows older than the retention, in bounded batches; returns how many. */
  public int sweep(Instant now, int maxBatches) throws SQLException {
    int total = 0;
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(DELETE_PUBLISHED)) {
      for (int i = 0; i < maxBatches; i++) {
        ps.setObject(1, ts(now.minus(options.retention())));
        ps.setInt(2, options.retentionBatch());
        int n = ps.executeUpdate();
        total += n;
        if (n < options.retentionBatch()) {
          break;
        }
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
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(STATS);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      OffsetDateTime oldest = rs.getObject("oldest", OffsetDateTime.class);
      return new Stats(
          rs.getLong("pending"),
          oldest == null ? null : oldest.toInstant(),
          rs.getLong("quarantined"));
    }
  }

  /**
   * Errors of the record itself, which another try will not cure. Anything else counts as "broker
   * unavailable".
   */
  static boolean isRefusal(Throwable e) {
    return e instanceof RecordTooLargeException
        || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidRecordException
        || e instanceof InvalidTopicException
        || e instanceof SerializationException;
  }

  private ProducerRecord<String, byte[]> record(Row row) {
    RecordHeaders headers = new RecordHeaders();
    header(headers, "ce_specversion", SPEC_VERSION);
    header(headers, "ce_id", row.id.toString());
    header(headers, "ce_type", "pin.messenger." + row.eventType);
    header(headers, "ce_source", options.source());
    header(headers, "ce_time", DateTimeFormatter.ISO_INSTANT.format(row.occurredAt));
    if (row.subject != null) {
      header(headers, "ce_subject", row.subject);
    }
    if (row.correlationId != null) {
      header(headers, "ce_correlationid", row.correlationId);
    }
    header(headers, "content-type", "application/json");
    return new ProducerRecord<>(
        row.topic, null, row.key, row.payload.getBytes(StandardCharsets.UTF_8), headers);
  }

  private static void header(RecordHeaders headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }

  private List<Row> claim(Instant now) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(CLAIM)) {
      ps.setObject(1, ts(now));
      ps.setObject(2, ts(now));
      ps.setInt(3, options.batchSize());
      ps.setObject(4, ts(now.plus(options.lease())));
      ps.setString(5, relayId);
      List<Row> rows = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new Row(
                  rs.getObject("id", UUID.class),
                  rs.getLong("seq"),
                  rs.getString("topic"),
                  rs.getString("message_key"),
                  rs.getString("event_type"),
                  rs.getString("payload"),
                  rs.getObject("occurred_at", OffsetDateTime.class).toInstant(),
                  rs.getString("correlation_id"),
                  rs.getInt("attempts"),
                  rs.getString("subject")));
        }
      }
      // Send in outbox order (the heads are of distinct keys; this keeps the batch readable in
      // logs).
      rows.sort(java.util.Comparator.comparingLong(r -> r.seq));
      return rows;
    }
  }

  private void markPublished(List<UUID> ids, Instant now) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(MARK_PUBLISHED)) {
      ps.setObject(1, ts(now));
      ps.setArray(2, c.createArrayOf("uuid", ids.toArray()));
      ps.setString(3, relayId);
      ps.executeUpdate();
    }
  }

  private boolean markRefused(Row row, Instant now, String error) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(MARK_REFUSED)) {
      ps.setString(1, error);
      ps.setObject(2, ts(now.plus(rowBackoff.after(row.attempts + 1))));
      ps.setInt(3, options.maxAttempts());
      ps.setObject(4, ts(now));
      ps.setObject(5, row.id);
      ps.setString(6, relayId);
      try (ResultSet rs = ps.executeQuery()) {
        boolean quarantined = rs.next() && rs.getBoolean(1);
        (quarantined ? log.atError() : log.atWarn())
            .addKeyValue("outboxId", row.id)
            .addKeyValue("messageKey", row.key)
            .addKeyValue("attempts", row.attempts + 1)
            .addKeyValue("reason", error)
            .log(quarantined ? "outbox row quarantined" : "outbox row refused by the broker");
        return quarantined;
      }
    }
  }

  private void release(List<UUID> ids, String error) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(RELEASE)) {
      ps.setString(1, error);
      ps.setArray(2, c.createArrayOf("uuid", ids.toArray()));
      ps.setString(3, relayId);
      ps.executeUpdate();
    }
  }

  private static String describe(Throwable e) {
    String m = e.getClass().getSimpleName() + ": " + e.getMessage();
    return m.length() > 1000 ? m.substring(0, 1000) : m;
  }

  private static OffsetDateTime ts(Instant i) {
    return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }

  private record Row(
      UUID id,
      long seq,
      String topic,
      String key,
      String eventType,
      String payload,
      Instant occurredAt,
      String correlationId,
      int attempts,
      String subject) {}
}
