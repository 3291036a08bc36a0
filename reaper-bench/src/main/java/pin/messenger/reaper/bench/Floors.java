package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;

/**
 * The two reference implementations the reaper is measured against, on the same data: (a) the
 * floor, one set-based statement per batch doing the same writes (claim, guarded update,
 * conference-ended outbox row with the payload built in SQL, realtime row, recorder stop rows); (b)
 * what a straightforward ORM loop does, row by row.
 */
final class Floors {
  /** Empty-room drain of one batch, everything in one statement. Returns the rows closed. */
  static final String SET_BASED_BATCH =
      """
      WITH claimed AS (
        SELECT s.id FROM messenger.conference_sessions s
         WHERE s.status = 'Active' AND s.active_participant_count = 0 AND s.last_activity_at <= ?
         ORDER BY s.last_activity_at LIMIT ? FOR UPDATE SKIP LOCKED
      ), closed AS (
        UPDATE messenger.conference_sessions s
           SET status = 'Ended', end_reason = 'EmptyTimeout', ended_at = ?, updated_at = ?,
               duration_seconds = floor(extract(epoch FROM ?::timestamptz - s.started_at))::bigint
          FROM claimed WHERE s.id = claimed.id AND s.status = 'Active'
        RETURNING s.*
      ), events AS (
        INSERT INTO messenger.integration_outbox (id, topic, message_key, event_type, payload, occurred_at, correlation_id)
        SELECT gen_random_uuid(), 'pin.messenger.conference-ended.v1', c.deal_id::text, 'conference-ended.v1',
               jsonb_build_object('conferenceId', c.id, 'chatId', c.chat_id, 'dealId', c.deal_id,
                 'tenantId', c.tenant_id, 'mediaType', c.media_type, 'status', 'Ended', 'endReason', 'EmptyTimeout',
                 'startedByUserId', c.started_by_user_id, 'startedAt', c.started_at, 'endedAt', c.ended_at,
                 'durationSeconds', c.duration_seconds, 'peakParticipantCount', c.peak_participant_count,
                 'participants', (SELECT coalesce(jsonb_agg(jsonb_build_object('userId', p.user_id)), '[]')
                                    FROM messenger.conference_participants p WHERE p.conference_id = c.id),
                 'wasRecorded', EXISTS (SELECT 1 FROM messenger.call_recordings r WHERE r.conference_id = c.id),
                 'recordingId', (SELECT r.id FROM messenger.call_recordings r WHERE r.conference_id = c.id
                                  ORDER BY r.created_at DESC LIMIT 1)),
               ?, 'floor'
          FROM closed c
      ), realtime AS (
        INSERT INTO messenger.realtime_outbox (id, kind, target_kind, chat_id, session_kind, conference_id, created_at)
        SELECT gen_random_uuid(), 'ConferenceEnded', 'ChatGroup', c.chat_id, 'Conference', c.id, ? FROM closed c
      ), stops AS (
        INSERT INTO messenger.recorder_stop_requests (id, recording_id, conference_id, reason, created_at)
        SELECT gen_random_uuid(), r.id, c.id, 'EmptyTimeout', ?
          FROM closed c JOIN messenger.call_recordings r ON r.conference_id = c.id
         WHERE r.status IN ('Pending', 'Recording', 'Uploading')
      )
      SELECT count(*) FROM closed
      """;

  private final DataSource dataSource;

  Floors(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Drains the due empty rooms with one set-based statement per batch; returns rows closed. */
  long setBased(Instant asOf, Instant cutoff, int batch) throws SQLException {
    long total = 0;
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(SET_BASED_BATCH)) {
      c.setAutoCommit(false);
      while (true) {
        int i = 1;
        ps.setObject(i++, ts(cutoff));
        ps.setInt(i++, batch);
        for (int k = 0; k < 6; k++) {
          ps.setObject(i++, ts(asOf));
        }
        long n;
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          n = rs.getLong(1);
        }
        c.commit();
        total += n;
        if (n < batch) {
          return total;
        }
      }
    }
  }

  /**
   * The set-based drain of the empty rooms due now, timed: rows/s. It must close exactly {@code
   * expected} rows (the backlog the caller made), else the figure is of another drain.
   */
  double setBasedRate(int batch, long expected) throws SQLException {
    Instant now = Instant.now();
    Instant cutoff = Phase.EMPTY_ROOM.cutoff(now, ConferenceRoomReaperOptions.defaults());
    long t0 = System.nanoTime();
    long n = setBased(now, cutoff, batch);
    double rate = n / ((System.nanoTime() - t0) / 1e9);
    if (n != expected) {
      throw new IllegalStateException("set-based floor closed " + n + " of " + expected);
    }
    return rate;
  }

  /**
   * Drains up to {@code limit} due empty rooms the way a row-by-row ORM loop does; returns rows
   * closed.
   */
  long rowByRow(Instant asOf, Instant cutoff, int batch, long limit) throws SQLException {
    long total = 0;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      while (total < limit) {
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT id FROM messenger.conference_sessions WHERE status = 'Active' AND active_participant_count = 0"
                    + " AND last_activity_at <= ? ORDER BY last_activity_at LIMIT ? FOR UPDATE SKIP LOCKED")) {
          ps.setObject(1, ts(cutoff));
          ps.setInt(2, batch);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              ids.add(rs.getObject(1, UUID.class));
            }
          }
        }
        for (UUID id : ids) {
          closeOne(c, id, asOf);
        }
        c.commit();
        total += ids.size();
        if (ids.size() < batch) {
          break;
        }
      }
    }
    return total;
  }

  private static void closeOne(Connection c, UUID id, Instant asOf) throws SQLException {
    String chat;
    String deal;
    try (PreparedStatement ps =
        c.prepareStatement("SELECT * FROM messenger.conference_sessions WHERE id = ?")) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        chat = rs.getString("chat_id");
        deal = rs.getString("deal_id");
      }
    }
    // Two reads of the same JDBC shape on purpose: the floor spells out each statement the reaper
    // would run, and each builds something different (payload JSON, recording ids).
    StringBuilder participants = new StringBuilder("[");
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT DISTINCT user_id FROM messenger.conference_participants WHERE conference_id = ?")) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          participants
              .append(participants.length() > 1 ? "," : "")
              .append("{\"userId\":\"")
              .append(rs.getString(1))
              .append("\"}");
        }
      }
    }
    List<UUID> recordings = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT id FROM messenger.call_recordings WHERE conference_id = ? AND status IN ('Pending','Recording','Uploading')")) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          recordings.add(rs.getObject(1, UUID.class));
        }
      }
    }
    update(
        c,
        "UPDATE messenger.conference_sessions SET status = 'Ended', end_reason = 'EmptyTimeout', ended_at = ?,"
            + " updated_at = ?, duration_seconds = 0 WHERE id = ? AND status = 'Active'",
        ts(asOf),
        ts(asOf),
        id);
    update(
        c,
        "INSERT INTO messenger.integration_outbox (id, topic, message_key, event_type, payload, occurred_at)"
            + " VALUES (gen_random_uuid(), 'pin.messenger.conference-ended.v1', ?, 'conference-ended.v1', ?::jsonb, ?)",
        deal,
        "{\"conferenceId\":\""
            + id
            + "\",\"chatId\":\""
            + chat
            + "\",\"participants\":"
            + participants
            + "]}",
        ts(asOf));
    update(
        c,
        "INSERT INTO messenger.realtime_outbox (id, kind, target_kind, chat_id, session_kind, conference_id, created_at)"
            + " VALUES (gen_random_uuid(), 'ConferenceEnded', 'ChatGroup', ?::uuid, 'Conference', ?, ?)",
        chat,
        id,
        ts(asOf));
    for (UUID r : recordings) {
      update(
          c,
          "INSERT INTO messenger.recorder_stop_requests (id, recording_id, conference_id, reason, created_at)"
              + " VALUES (gen_random_uuid(), ?, ?, 'EmptyTimeout', ?)",
          r,
          id,
          ts(asOf));
    }
  }

  /**
   * One statement with positional parameters (a String goes as {@code setString} would send it).
   */
  private static void update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      ps.executeUpdate();
    }
  }

  /**
   * The three claim statements alone (the idle-cycle reference), in one transaction, rolled back.
   */
  void rawClaims(Instant emptyCutoff, Instant provisionCutoff, Instant staleCutoff)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      claim(
          c,
          "status = 'Active' AND active_participant_count = 0 AND last_activity_at <= ? ORDER BY last_activity_at",
          emptyCutoff);
      claim(c, "status = 'Provisioning' AND created_at <= ? ORDER BY created_at", provisionCutoff);
      claim(
          c, "status = 'Active' AND last_activity_at <= ? ORDER BY last_activity_at", staleCutoff);
      c.rollback();
    }
  }

  private static void claim(Connection c, String predicate, Instant cutoff) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT id FROM messenger.conference_sessions WHERE "
                + predicate
                + " LIMIT 100 FOR UPDATE SKIP LOCKED")) {
      ps.setObject(1, ts(cutoff));
      ps.executeQuery().close();
    }
  }

  static OffsetDateTime ts(Instant i) {
    return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }
}
