package pin.messenger.reaper.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import pin.messenger.reaper.core.ConferenceSession;

/**
 * The row a close is built from: the session's columns and what the transition and its event need
 * besides. Read by the claim ({@link Claims#CLAIM}) and by the operator's {@code end} ({@link
 * OperatorEnd}) alike, so both build the same transition from the same row.
 */
final class SessionRow {
  /**
   * What a close needs besides the session's own columns, for the session aliased {@code c}: the
   * distinct roster in join order, the newest recording, and the recordings still running (their
   * recorder must be told to stop).
   */
  static final String EVENT_COLUMNS =
      """
      ARRAY(SELECT p.user_id FROM messenger.conference_participants p
             WHERE p.conference_id = c.id
             GROUP BY p.user_id ORDER BY min(p.joined_at), p.user_id) AS participants,
      (SELECT r.id FROM messenger.call_recordings r
        WHERE r.conference_id = c.id
        ORDER BY r.created_at DESC, r.id DESC LIMIT 1) AS latest_recording_id,
      ARRAY(SELECT r.id FROM messenger.call_recordings r
             WHERE r.conference_id = c.id AND r.status IN ('Pending', 'Recording', 'Uploading')
             ORDER BY r.created_at, r.id) AS active_recording_ids""";

  private SessionRow() {}

  /** The session of a row read with {@link #EVENT_COLUMNS} (and the session's own columns). */
  static ConferenceSession read(ResultSet rs) throws SQLException {
    return new ConferenceSession(
        Jdbc.uuid(rs, "id"),
        Jdbc.uuid(rs, "chat_id"),
        Jdbc.uuid(rs, "deal_id"),
        Jdbc.uuid(rs, "tenant_id"),
        rs.getString("media_type"),
        rs.getString("status"),
        Jdbc.uuid(rs, "started_by_user_id"),
        Objects.requireNonNull(Jdbc.instant(rs, "created_at")),
        Jdbc.instant(rs, "started_at"),
        Objects.requireNonNull(Jdbc.instant(rs, "last_activity_at")),
        rs.getInt("active_participant_count"),
        rs.getInt("peak_participant_count"),
        Jdbc.uuids(rs, "participants"),
        Jdbc.uuid(rs, "latest_recording_id"),
        Jdbc.uuids(rs, "active_recording_ids"),
        Jdbc.instant(rs, "reaper_next_attempt_at"));
  }
}
