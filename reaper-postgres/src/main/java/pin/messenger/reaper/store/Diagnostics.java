package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.schema.DeliveryTables;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.annotation.JsonNaming;

/**
 * The counts {@code status} ({@link StatusReport}) and the gauges read alike, with one statement
 * and one reader: what waits for delivery, and the poison rows. {@code explain} is {@link
 * Explanation}.
 */
public final class Diagnostics {
  private Diagnostics() {}

  /**
   * Pending deliveries and poison rows, straight from the tables (also read by the gauges).
   * "Pending" is {@link DeliveryTables}' definition, the one the relay and the dispatcher claim by.
   */
  public static final String DELIVERY =
      """
      SELECT (SELECT count(*) FROM messenger.integration_outbox WHERE %1$s) AS outbox_pending,
             (SELECT min(occurred_at) FROM messenger.integration_outbox WHERE %1$s) AS outbox_oldest,
             (SELECT count(*) FROM messenger.integration_outbox WHERE quarantined_at IS NOT NULL) AS outbox_quarantined,
             (SELECT count(*) FROM messenger.recorder_stop_requests WHERE %2$s) AS recorder_pending,
             (SELECT min(created_at) FROM messenger.recorder_stop_requests WHERE %2$s) AS recorder_oldest,
             (SELECT count(*) FROM messenger.recorder_stop_requests WHERE gave_up_at IS NOT NULL) AS recorder_gave_up,
             (SELECT count(*) FROM messenger.realtime_outbox WHERE dispatched_at IS NULL) AS realtime_pending,
             (SELECT count(*) FROM messenger.conference_sessions
               WHERE status IN ('Provisioning', 'Active') AND reaper_last_error IS NOT NULL) AS poison
      """
          .formatted(
              DeliveryTables.INTEGRATION_OUTBOX.pending(),
              DeliveryTables.RECORDER_STOP_REQUESTS.pending());

  /** One reading of {@link Diagnostics#DELIVERY}: what waits for delivery, and the poison rows. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record DeliveryBacklog(
      long outboxPending,
      @Nullable Instant outboxOldest,
      long outboxQuarantined,
      long recorderPending,
      @Nullable Instant recorderOldest,
      long recorderGaveUp,
      long realtimePending,
      long poison) {}

  /**
   * Reads {@link #DELIVERY} once.
   *
   * @param timeout the statement's bound ({@link Duration#ZERO}: none)
   */
  public static DeliveryBacklog read(Connection c, Duration timeout) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(DELIVERY)) {
      ps.setQueryTimeout((int) timeout.toSeconds());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new DeliveryBacklog(
            rs.getLong("outbox_pending"),
            Jdbc.instant(rs, "outbox_oldest"),
            rs.getLong("outbox_quarantined"),
            rs.getLong("recorder_pending"),
            Jdbc.instant(rs, "recorder_oldest"),
            rs.getLong("recorder_gave_up"),
            rs.getLong("realtime_pending"),
            rs.getLong("poison"));
      }
    }
  }
}
