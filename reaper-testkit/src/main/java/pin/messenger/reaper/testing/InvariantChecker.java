package pin.messenger.reaper.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Reads the database after a run and lists every broken promise of the spec (empty list = all
 * kept): transitions at most once, transitions and their outbox rows together, no empty-room close
 * of an occupied room, nothing due left behind (poison rows excepted), the empty-room SLO.
 */
public final class InvariantChecker {
  private final Rooms rooms;

  public InvariantChecker(DataSource dataSource) {
    this.rooms = new Rooms(dataSource);
  }

  /** Figures of the run, for reports. */
  public record Figures(
      long conferences,
      long ended,
      long failed,
      long active,
      long poison,
      long outbox,
      long realtime) {}

  public Figures figures() {
    Map<String, Object> r =
        rooms
            .query(
                """
                SELECT count(*) AS conferences,
                       count(*) FILTER (WHERE end_reason IN ('EmptyTimeout', 'Timeout')) AS ended,
                       count(*) FILTER (WHERE status = 'Failed') AS failed,
                       count(*) FILTER (WHERE status IN ('Provisioning', 'Active')) AS active,
                       count(*) FILTER (WHERE reaper_last_error IS NOT NULL AND status IN ('Provisioning', 'Active')) AS poison,
                       (SELECT count(*) FROM messenger.integration_outbox) AS outbox,
                       (SELECT count(*) FROM messenger.realtime_outbox) AS realtime
                  FROM messenger.conference_sessions
                """)
            .get(0);
    return new Figures(
        n(r, "conferences"),
        n(r, "ended"),
        n(r, "failed"),
        n(r, "active"),
        n(r, "poison"),
        n(r, "outbox"),
        n(r, "realtime"));
  }

  private static long n(Map<String, Object> r, String k) {
    return ((Number) r.get(k)).longValue();
  }

  /**
   * Every violation found.
   *
   * @param settledAt a moment after the last cycle of the run: nothing may be due at it
   * @param interval the polling interval (SLO) and {@code tolerance} the stated slack for the
   *     machine
   */
  public List<String> violations(
      Instant settledAt,
      Instant sloFrom,
      Duration grace,
      Duration provisionTimeout,
      Duration staleTimeout,
      Duration interval,
      Duration tolerance) {
    List<String> v = new ArrayList<>();
    // A transition writes exactly one realtime row: two rows = transitioned twice.
    check(
        v,
        "conference transitioned twice (two realtime rows)",
        "SELECT conference_id FROM messenger.realtime_outbox GROUP BY conference_id HAVING count(*) > 1");
    // Reaper closes: Ended with exactly one conference-ended row and one realtime row.
    check(
        v,
        "reaper-ended conference without exactly one conference-ended row",
        """
        SELECT s.id FROM messenger.conference_sessions s
         WHERE s.end_reason IN ('EmptyTimeout', 'Timeout')
           AND (SELECT count(*) FROM messenger.integration_outbox o
                 WHERE o.message_key = s.deal_id::text AND o.payload->>'conferenceId' = s.id::text) <> 1
        """);
    check(
        v,
        "reaper-closed conference without exactly one realtime row",
        """
        SELECT s.id FROM messenger.conference_sessions s
         WHERE s.end_reason IN ('EmptyTimeout', 'Timeout', 'Error')
           AND (SELECT count(*) FROM messenger.realtime_outbox r WHERE r.conference_id = s.id) <> 1
        """);
    check(
        v,
        "Failed conference with a conference-ended row",
        """
        SELECT s.id FROM messenger.conference_sessions s
         WHERE s.status = 'Failed'
           AND EXISTS (SELECT 1 FROM messenger.integration_outbox o WHERE o.payload->>'conferenceId' = s.id::text)
        """);
    check(
        v,
        "outbox row without its transition",
        """
        SELECT o.id FROM messenger.integration_outbox o
          LEFT JOIN messenger.conference_sessions s ON s.id = (o.payload->>'conferenceId')::uuid
         WHERE s.id IS NULL OR s.status <> 'Ended' OR s.end_reason NOT IN ('EmptyTimeout', 'Timeout')
        """);
    check(
        v,
        "realtime row without its transition",
        """
        SELECT r.id FROM messenger.realtime_outbox r
          LEFT JOIN messenger.conference_sessions s ON s.id = r.conference_id
         WHERE s.id IS NULL OR s.status NOT IN ('Ended', 'Failed')
            OR (r.kind = 'ConferenceEnded') <> (s.status = 'Ended')
        """);
    // Commands change counts only on Active rows (status-guarded), so the count at close is still
    // on the row.
    check(
        v,
        "empty-room close of a room with participants",
        "SELECT id FROM messenger.conference_sessions WHERE end_reason = 'EmptyTimeout' AND active_participant_count <> 0");
    check(
        v,
        "empty-room close before the grace ended",
        "SELECT id FROM messenger.conference_sessions WHERE end_reason = 'EmptyTimeout' AND ended_at < last_activity_at + "
            + interval(grace));
    check(
        v,
        "due conference left active (liveness)",
        """
        SELECT id FROM messenger.conference_sessions s
         WHERE s.reaper_last_error IS NULL AND (
               (s.status = 'Active' AND s.active_participant_count = 0 AND s.last_activity_at <= ?::timestamptz - %s)
            OR (s.status = 'Provisioning' AND s.created_at <= ?::timestamptz - %s)
            OR (s.status = 'Active' AND s.last_activity_at <= ?::timestamptz - %s))
        """
            .formatted(interval(grace), interval(provisionTimeout), interval(staleTimeout)),
        Rooms.ts(settledAt),
        Rooms.ts(settledAt),
        Rooms.ts(settledAt));
    // The SLO binds rooms that became due during the run; a backlog seeded as already overdue
    // cannot meet it.
    check(
        v,
        "empty room closed later than last_activity_at + grace + interval + tolerance (SLO)",
        "SELECT id FROM messenger.conference_sessions WHERE end_reason = 'EmptyTimeout'"
            + " AND last_activity_at + "
            + interval(grace)
            + " >= ?::timestamptz"
            + " AND ended_at > last_activity_at + "
            + interval(grace.plus(interval).plus(tolerance)),
        Rooms.ts(sloFrom));
    return v;
  }

  private static String interval(Duration d) {
    return "interval '" + d.toMillis() + " milliseconds'";
  }

  private void check(List<String> violations, String what, String sql, Object... params) {
    List<Map<String, Object>> rows = rooms.query(sql, params);
    if (!rows.isEmpty()) {
      violations.add(what + ": " + rows.size() + " (e.g. " + rows.get(0).values() + ")");
    }
  }
}
