package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import pin.messenger.reaper.core.Phase;

/**
 * The rate section's planted rooms ({@link RatePlan}) in the table: written before the window, and
 * checked after it.
 */
final class RateRooms {
  private RateRooms() {}

  /**
   * The planted rooms, written as the messenger leaves them and marked as the worker arms them (the
   * mark is the reference time); deal_id is the room's id, so its integration events are found.
   */
  static void plant(DataSource db, List<RatePlan.Room> plan) throws Exception {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                INSERT INTO messenger.conference_sessions
                  (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id,
                   created_at, started_at, last_activity_at, updated_at, active_participant_count,
                   peak_participant_count, reaper_window_start)
                VALUES (?, gen_random_uuid(), ?, ?, 'Video', ?, gen_random_uuid(),
                        ?::timestamptz - CASE WHEN ? THEN interval '0' ELSE interval '1 hour' END,
                        CASE WHEN ? THEN NULL ELSE ?::timestamptz - interval '1 hour' END,
                        ?, ?, ?, ?, ?)
                """)) {
      for (RatePlan.Room room : plan) {
        boolean provisioning = room.phase() == Phase.PROVISION_TIMEOUT;
        int participants = room.phase() == Phase.STALE_LIVE ? 2 : 0;
        var reference = Floors.ts(room.reference());
        ps.setObject(1, room.id());
        ps.setObject(2, room.id());
        ps.setObject(3, PLANTED);
        ps.setString(4, room.phase().from().name());
        ps.setObject(5, reference);
        ps.setBoolean(6, provisioning);
        ps.setBoolean(7, provisioning);
        ps.setObject(8, reference);
        ps.setObject(9, reference);
        ps.setObject(10, reference);
        ps.setInt(11, participants);
        ps.setInt(12, provisioning ? 0 : 2);
        ps.setObject(13, reference);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Marks the planted rooms ({@code tenant_id}). */
  static final UUID PLANTED = UUID.fromString("5ca1ab1e-0000-4000-8000-000000000038");

  /**
   * Whether every close was on time and once: planted rooms closed before their due instant, rooms
   * closed twice (more than one integration event), other rooms closed, planted rooms due more than
   * 2 s before the window's end still open, and one integration event per closed Active room (none
   * for a failed Provisioning room): any of these fails the check. The loop's own count may be
   * lower than the table's, never higher: closing the loop at the window's end stops a cycle in
   * progress, whose batches that committed are closes the loop never reports.
   */
  static String check(DataSource db, List<RatePlan.Room> plan, Instant end, long closedByLoop)
      throws Exception {
    java.util.Map<UUID, RatePlan.Room> byId = new java.util.HashMap<>();
    plan.forEach(r -> byId.put(r.id(), r));
    long closed = 0;
    long failedProvisioning = 0;
    long early = 0;
    long missed = 0;
    double maxLateness = 0;
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT id, status, ended_at FROM messenger.conference_sessions"
                    + " WHERE tenant_id = ?")) {
      ps.setObject(1, PLANTED);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          RatePlan.Room room =
              java.util.Objects.requireNonNull(byId.get(rs.getObject(1, UUID.class)));
          boolean open = List.of("Active", "Provisioning").contains(rs.getString(2));
          if (open) {
            missed += room.due().isBefore(end.minusSeconds(2)) ? 1 : 0;
            continue;
          }
          closed++;
          failedProvisioning += room.phase() == Phase.PROVISION_TIMEOUT ? 1 : 0;
          Instant ended = rs.getObject(3, java.time.OffsetDateTime.class).toInstant();
          early += ended.isBefore(room.due()) ? 1 : 0;
          maxLateness = Math.max(maxLateness, Duration.between(room.due(), ended).toMillis() / 1e3);
        }
      }
    }
    long events = 0;
    long twice = 0;
    long others = 0;
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                SELECT (SELECT count(*) FROM messenger.integration_outbox o
                         JOIN messenger.conference_sessions s ON o.message_key = s.deal_id::text
                         WHERE s.tenant_id = ?),
                       (SELECT count(*) FROM (SELECT o.message_key FROM messenger.integration_outbox o
                         JOIN messenger.conference_sessions s ON o.message_key = s.deal_id::text
                         WHERE s.tenant_id = ? GROUP BY 1 HAVING count(*) > 1) d),
                       (SELECT count(*) FROM messenger.conference_sessions s
                         WHERE s.tenant_id <> ? AND s.status NOT IN ('Provisioning', 'Active')
                           AND s.ended_at > now() - interval '1 hour')
                """)) {
      ps.setObject(1, PLANTED);
      ps.setObject(2, PLANTED);
      ps.setObject(3, PLANTED);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        events = rs.getLong(1);
        twice = rs.getLong(2);
        others = rs.getLong(3);
      }
    }
    boolean ok =
        early + twice + others + missed == 0
            && closedByLoop <= closed
            && events == closed - failedProvisioning;
    return String.format(
        Locale.ROOT,
        "check %s: %d planted, %d closed (the loop's results counted %d; %d of them Provisioning, failed"
            + " without an event), %d integration events, %d closed early, %d closed twice, %d"
            + " other rooms closed, %d due > 2 s before the end still open, max lateness %.2f s",
        ok ? "passed" : "FAILED",
        plan.size(),
        closed,
        closedByLoop,
        failedProvisioning,
        events,
        early,
        twice,
        others,
        missed,
        maxLateness);
  }
}
