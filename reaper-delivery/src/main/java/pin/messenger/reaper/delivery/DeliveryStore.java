package pin.messenger.reaper.delivery;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.event.Level;
import pin.messenger.reaper.schema.DeliveryTables;

/**
 * The storage of the delivery tables, {@code messenger.integration_outbox} and {@code
 * messenger.recorder_stop_requests}: every statement the relay and the recorder dispatcher run, as
 * {@code PostgresReaperStore} is for the sessions. The tables as leased tables (what a step claims,
 * in which order, read how) are defined here, their lease statements are {@link LeasedRows}', the
 * outbox's retention sweep and counts are below; what "pending" means is {@link DeliveryTables}'.
 * The relay and the dispatcher hold the policy (batches, backoff, what an outcome means) and no
 * SQL. Every statement runs under the statement timeout the store was made with.
 */
public final class DeliveryStore {

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

  static final String OUTBOX_COLUMNS =
      """
      o.id, o.seq, o.topic, o.message_key, o.event_type, o.payload::text AS payload, o.occurred_at,
      o.correlation_id, o.attempts, o.payload->>'conferenceId' AS subject, o.trace_parent
      """;

  static final String STOP_REQUEST_COLUMNS =
      "o.id, o.recording_id, o.conference_id, o.reason, o.attempts, o.created_at, o.external_id,"
          + " o.trace_parent";

  /** The outbox as a leased table: head rows of their keys, in sequence. */
  static final LeasedTable<OutboxRow> OUTBOX =
      new LeasedTable<>(
          "relay",
          DeliveryTables.INTEGRATION_OUTBOX,
          new LeasedTable.Claim<>(HEAD_OF_KEY, "o.seq", OUTBOX_COLUMNS, DeliveryStore::outboxRow),
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

  /** The stop requests as a leased table: oldest first. */
  static final LeasedTable<StopRequest> STOP_REQUESTS =
      new LeasedTable<>(
          "recorder",
          DeliveryTables.RECORDER_STOP_REQUESTS,
          new LeasedTable.Claim<>(
              "", "o.created_at", STOP_REQUEST_COLUMNS, DeliveryStore::stopRequest),
          LeasedTable.AttemptCount.EVERY_SEND,
          new LeasedTable.LogEvents<>(
              (r, line) -> {
                var unused =
                    line.addKeyValue("requestId", r.id())
                        .addKeyValue("recordingId", r.recordingId())
                        .addKeyValue("conferenceId", r.conferenceId());
              },
              Level.INFO,
              "recorder stop delivered",
              "recorder stop failed; will retry",
              "recorder stop given up",
              "recorder stop lease lost"));

  static final String DELETE_PUBLISHED =
      """
      DELETE FROM messenger.integration_outbox
       WHERE id IN (SELECT id FROM messenger.integration_outbox
                     WHERE published_at IS NOT NULL AND published_at < ?
                     ORDER BY published_at LIMIT ?)
      """;

  private final DataSource dataSource;
  private final Duration statementTimeout;

  public DeliveryStore(DataSource dataSource, Duration statementTimeout) {
    this.dataSource = dataSource;
    this.statementTimeout = statementTimeout;
  }

  /** The outbox's rows as leased to {@code owner}. */
  LeasedRows<OutboxRow> outbox(String owner) {
    return new LeasedRows<>(dataSource, OUTBOX, owner, statementTimeout);
  }

  /** The stop requests as leased to {@code owner}. */
  LeasedRows<StopRequest> stopRequests(String owner) {
    return new LeasedRows<>(dataSource, STOP_REQUESTS, owner, statementTimeout);
  }

  /**
   * Deletes up to {@code limit} outbox rows published before {@code before}, oldest first, in one
   * transaction; returns how many.
   */
  int deletePublishedOutbox(Instant before, int limit) throws SQLException {
    return BoundedTransaction.run(
        dataSource,
        statementTimeout,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(DELETE_PUBLISHED)) {
            ps.setObject(1, LeasedRows.ts(before));
            ps.setInt(2, limit);
            return ps.executeUpdate();
          }
        });
  }

  private static OutboxRow outboxRow(ResultSet rs) throws SQLException {
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

  private static StopRequest stopRequest(ResultSet rs) throws SQLException {
    return new StopRequest(
        rs.getObject("id", UUID.class),
        rs.getObject("recording_id", UUID.class),
        rs.getObject("conference_id", UUID.class),
        rs.getString("reason"),
        rs.getInt("attempts"),
        rs.getString("external_id"),
        rs.getString("trace_parent"));
  }
}
