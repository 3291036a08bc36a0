package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.ConferenceSession;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;
import pin.messenger.reaper.core.Transition;

/**
 * One batch transaction over {@code messenger.conference_sessions} and its outboxes. Claims are one
 * statement each, the writes of a whole batch are one statement; a data error falls back to halves
 * under savepoints so a poison row is isolated without giving up set-based writes for the healthy
 * rows.
 */
final class PostgresBatch implements ReaperStore.Batch {
  private static final Logger log = LoggerFactory.getLogger(PostgresBatch.class);

  static final String SET_LIMITS =
      """
      SELECT set_config('statement_timeout', ?, true),
             set_config('lock_timeout', ?, true),
             set_config('idle_in_transaction_session_timeout', ?, true)
      """;

  /**
   * Due predicates per phase. Each is served by ix_conf_active (status, last_activity_at, count,
   * created_at).
   */
  static final String EMPTY_ROOM_DUE =
      "s.status = 'Active' AND s.active_participant_count = 0 AND s.last_activity_at <= ?";

  static final String PROVISION_TIMEOUT_DUE = "s.status = 'Provisioning' AND s.created_at <= ?";

  static final String STALE_LIVE_DUE = "s.status = 'Active' AND s.last_activity_at <= ?";

  /** Poison rows wait out their backoff before they are claimed again. */
  static final String NOT_BACKING_OFF =
      "(s.reaper_next_attempt_at IS NULL OR s.reaper_next_attempt_at <= ?)";

  /**
   * Claim: lock at most N due rows, oldest first, passing over rows other transactions hold; then
   * read what the event needs (distinct roster in join order, newest recording, recordings still
   * running) for just those rows.
   */
  static final String CLAIM =
      """
      WITH claimed AS (
        SELECT s.id, s.chat_id, s.deal_id, s.tenant_id, s.media_type, s.status, s.started_by_user_id,
               s.created_at, s.started_at, s.last_activity_at, s.active_participant_count,
               s.peak_participant_count, s.reaper_attempts
          FROM messenger.conference_sessions s
         WHERE %1$s AND %2$s
         ORDER BY s.%3$s
         LIMIT ?
           FOR UPDATE SKIP LOCKED
      )
      SELECT c.*,
             ARRAY(SELECT p.user_id FROM messenger.conference_participants p
                    WHERE p.conference_id = c.id
                    GROUP BY p.user_id ORDER BY min(p.joined_at), p.user_id) AS participants,
             (SELECT r.id FROM messenger.call_recordings r
               WHERE r.conference_id = c.id
               ORDER BY r.created_at DESC, r.id DESC LIMIT 1) AS latest_recording_id,
             ARRAY(SELECT r.id FROM messenger.call_recordings r
                    WHERE r.conference_id = c.id AND r.status IN ('Pending', 'Recording', 'Uploading')
                    ORDER BY r.created_at, r.id) AS active_recording_ids
        FROM claimed c
       ORDER BY c.%3$s
      """;

  /**
   * Due rows (locked or not) up to a claim-order key: what the claim saw minus what it got is what
   * it skipped.
   */
  static final String COUNT_DUE =
      """
      SELECT count(*) FROM messenger.conference_sessions s
       WHERE %1$s AND %2$s AND s.%3$s <= ?
         AND s.%3$s > coalesce(?::timestamptz, '-infinity')
      """;

  /**
   * The batch's writes in one statement: status-guarded transitions, then for exactly the rows the
   * guard let through, the integration-outbox, realtime-outbox and recorder-stop rows. Returns the
   * ids actually closed.
   */
  static final String APPLY =
      """
      WITH t AS (
        SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::bigint[])
                 AS t(id, from_status, to_status, end_reason, duration_seconds)
      ), closed AS (
        UPDATE messenger.conference_sessions s
           SET status = t.to_status, end_reason = t.end_reason, ended_at = ?, updated_at = ?,
               duration_seconds = t.duration_seconds
          FROM t
         WHERE s.id = t.id AND s.status = t.from_status
        RETURNING s.id, s.chat_id, s.deal_id
      ), events AS (
        INSERT INTO messenger.integration_outbox
               (id, topic, message_key, event_type, payload, occurred_at, correlation_id)
        SELECT gen_random_uuid(), ?, closed.deal_id::text, ?, p.payload, ?, ?
          FROM unnest(?::uuid[]) WITH ORDINALITY AS e(conference_id, n)
          JOIN jsonb_array_elements(?::jsonb) WITH ORDINALITY AS p(payload, n) ON p.n = e.n
          JOIN closed ON closed.id = e.conference_id
      ), realtime AS (
        INSERT INTO messenger.realtime_outbox
               (id, kind, target_kind, chat_id, session_kind, conference_id, created_at)
        SELECT gen_random_uuid(), r.kind, 'ChatGroup', closed.chat_id, 'Conference', closed.id, ?
          FROM unnest(?::uuid[], ?::text[]) AS r(conference_id, kind)
          JOIN closed ON closed.id = r.conference_id
      ), stops AS (
        INSERT INTO messenger.recorder_stop_requests (id, recording_id, conference_id, reason, created_at)
        SELECT gen_random_uuid(), x.recording_id, closed.id, x.reason, ?
          FROM unnest(?::uuid[], ?::uuid[], ?::text[]) AS x(conference_id, recording_id, reason)
          JOIN closed ON closed.id = x.conference_id
      )
      SELECT id FROM closed
      """;

  /**
   * Keeps a poison row's error on it and backs it off exponentially from the polling interval to a
   * cap.
   */
  static final String RECORD_FAILURES =
      """
      UPDATE messenger.conference_sessions s
         SET reaper_attempts = s.reaper_attempts + 1,
             reaper_last_error = f.error,
             reaper_last_error_at = ?,
             reaper_next_attempt_at = ?::timestamptz
                 + least(?::bigint, ?::bigint * (2 ^ least(s.reaper_attempts, 20))::bigint) * interval '1 millisecond'
        FROM unnest(?::uuid[], ?::text[]) AS f(id, error)
       WHERE s.id = f.id
      """;

  private static final int MAX_ERROR_LENGTH = 1000;

  private final Connection connection;
  private boolean committed;

  PostgresBatch(Connection connection, Duration statementTimeout, Duration idleTimeout)
      throws SQLException {
    this.connection = connection;
    try (PreparedStatement ps = connection.prepareStatement(SET_LIMITS)) {
      ps.setString(1, statementTimeout.toMillis() + "ms");
      ps.setString(2, statementTimeout.toMillis() + "ms");
      ps.setString(3, idleTimeout.toMillis() + "ms");
      ps.executeQuery().close();
    }
  }

  static String duePredicate(Phase phase) {
    return switch (phase) {
      case EMPTY_ROOM -> EMPTY_ROOM_DUE;
      case PROVISION_TIMEOUT -> PROVISION_TIMEOUT_DUE;
      case STALE_LIVE -> STALE_LIVE_DUE;
    };
  }

  /**
   * The column claims order by: oldest presence first, or oldest creation for Provisioning rooms.
   */
  /** The column of {@link Phase#orderKey}: the two must name the same timestamp. */
  static String orderColumn(Phase phase) {
    return phase == Phase.PROVISION_TIMEOUT ? "created_at" : "last_activity_at";
  }

  static String claimSql(Phase phase) {
    return CLAIM.formatted(duePredicate(phase), NOT_BACKING_OFF, orderColumn(phase));
  }

  static String countDueSql(Phase phase) {
    return COUNT_DUE.formatted(duePredicate(phase), NOT_BACKING_OFF, orderColumn(phase));
  }

  @Override
  public List<ConferenceSession> claim(Phase phase, Instant cutoff, Instant asOf, int limit) {
    try (PreparedStatement ps = connection.prepareStatement(claimSql(phase))) {
      ps.setObject(1, Sql.ts(cutoff));
      ps.setObject(2, Sql.ts(asOf));
      ps.setInt(3, limit);
      List<ConferenceSession> rows = new ArrayList<>(limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new ConferenceSession(
                  Sql.uuid(rs, "id"),
                  Sql.uuid(rs, "chat_id"),
                  Sql.uuid(rs, "deal_id"),
                  Sql.uuid(rs, "tenant_id"),
                  rs.getString("media_type"),
                  rs.getString("status"),
                  Sql.uuid(rs, "started_by_user_id"),
                  Sql.instant(rs, "created_at"),
                  Sql.instant(rs, "started_at"),
                  Sql.instant(rs, "last_activity_at"),
                  rs.getInt("active_participant_count"),
                  rs.getInt("peak_participant_count"),
                  Sql.uuids(rs, "participants"),
                  Sql.uuid(rs, "latest_recording_id"),
                  Sql.uuids(rs, "active_recording_ids"),
                  rs.getInt("reaper_attempts")));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new StoreException("claim " + phase.label() + " failed: " + Sql.describe(e), e);
    }
  }

  @Override
  public int countSkippedLocked(
      Phase phase,
      Instant cutoff,
      Instant asOf,
      List<ConferenceSession> claimed,
      int limit,
      Instant after) {
    // A full claim may have stopped before later due rows: only rows up to its last key were passed
    // over.
    Instant upTo = cutoff;
    if (claimed.size() >= limit && !claimed.isEmpty()) {
      upTo = phase.orderKey(claimed.get(claimed.size() - 1));
    }
    long claimedInRange =
        after == null
            ? claimed.size()
            : claimed.stream().filter(s -> phase.orderKey(s).isAfter(after)).count();
    try (PreparedStatement ps = connection.prepareStatement(countDueSql(phase))) {
      ps.setObject(1, Sql.ts(cutoff));
      ps.setObject(2, Sql.ts(asOf));
      ps.setObject(3, Sql.ts(upTo));
      ps.setObject(4, Sql.ts(after)); // null on the first batch: no lower bound
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return (int) Math.max(0, rs.getInt(1) - claimedInRange);
      }
    } catch (SQLException e) {
      throw new StoreException("count due " + phase.label() + " failed: " + Sql.describe(e), e);
    }
  }

  @Override
  public ReaperStore.ApplyResult apply(
      List<Transition> transitions, String correlationId, Instant asOf) {
    List<Transition> applied = new ArrayList<>(transitions.size());
    List<Transition> raceLost = new ArrayList<>();
    Map<UUID, String> failed = new LinkedHashMap<>();
    try {
      applyIsolating(transitions, correlationId, asOf, applied, raceLost, failed);
    } catch (SQLException e) {
      throw new StoreException("writing transitions failed: " + Sql.describe(e), e);
    }
    return new ReaperStore.ApplyResult(applied, raceLost, failed);
  }

  /**
   * Writes {@code part} in one statement; on a data error splits it in halves until the bad rows
   * are alone.
   */
  private void applyIsolating(
      List<Transition> part,
      String correlationId,
      Instant asOf,
      List<Transition> applied,
      List<Transition> raceLost,
      Map<UUID, String> failed)
      throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    Set<UUID> closed;
    try {
      closed = write(part, correlationId, asOf);
      connection.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      if (!Sql.isDataError(e)) {
        throw e;
      }
      connection.rollback(savepoint);
      if (part.size() == 1) {
        failed.put(part.get(0).conferenceId(), Sql.describe(e));
        return;
      }
      int mid = part.size() / 2;
      applyIsolating(part.subList(0, mid), correlationId, asOf, applied, raceLost, failed);
      applyIsolating(
          part.subList(mid, part.size()), correlationId, asOf, applied, raceLost, failed);
      return;
    }
    for (Transition t : part) {
      (closed.contains(t.conferenceId()) ? applied : raceLost).add(t);
    }
  }

  private Set<UUID> write(List<Transition> part, String correlationId, Instant asOf)
      throws SQLException {
    int n = part.size();
    List<UUID> ids = new ArrayList<>(n);
    List<String> from = new ArrayList<>(n);
    List<String> to = new ArrayList<>(n);
    List<String> reasons = new ArrayList<>(n);
    List<Long> durations = new ArrayList<>(n);
    List<UUID> eventConferences = new ArrayList<>(n);
    // The payloads travel as one JSON array, not a text[]: a text[] literal makes the driver escape
    // every
    // character of every payload (the hottest frame of the drain profile, docs/benchmarks.md). Row
    // ids are made
    // by PostgreSQL (gen_random_uuid()): 3 SecureRandom draws and 3 uuid[] parameters fewer per
    // closed row.
    StringBuilder payloads = new StringBuilder(n * 600).append('[');
    List<UUID> realtimeConferences = new ArrayList<>(n);
    List<String> realtimeKinds = new ArrayList<>(n);
    List<UUID> stopConferences = new ArrayList<>();
    List<UUID> stopRecordings = new ArrayList<>();
    List<String> stopReasons = new ArrayList<>();
    for (Transition t : part) {
      ids.add(t.conferenceId());
      from.add(t.from().name());
      to.add(t.to().name());
      reasons.add(t.endReason().name());
      durations.add(t.durationSeconds());
      if (t.event() != null) {
        eventConferences.add(t.conferenceId());
        if (payloads.length() > 1) {
          payloads.append(',');
        }
        payloads.append(ConferenceEndedPayload.json(t.event()));
      }
      realtimeConferences.add(t.conferenceId());
      realtimeKinds.add(t.realtimeKind());
      for (UUID recording : t.recordingsToStop()) {
        stopConferences.add(t.conferenceId());
        stopRecordings.add(recording);
        stopReasons.add(t.endReason().name());
      }
    }
    try (PreparedStatement ps = connection.prepareStatement(APPLY)) {
      int i = 1;
      ps.setArray(i++, Sql.uuidArray(connection, ids));
      ps.setArray(i++, Sql.textArray(connection, from));
      ps.setArray(i++, Sql.textArray(connection, to));
      ps.setArray(i++, Sql.textArray(connection, reasons));
      ps.setArray(i++, Sql.bigintArray(connection, durations));
      ps.setObject(i++, Sql.ts(asOf));
      ps.setObject(i++, Sql.ts(asOf));
      ps.setString(i++, ConferenceEndedEvent.TOPIC);
      ps.setString(i++, ConferenceEndedEvent.EVENT_TYPE);
      ps.setObject(i++, Sql.ts(asOf));
      ps.setString(i++, correlationId);
      ps.setArray(i++, Sql.uuidArray(connection, eventConferences));
      ps.setString(i++, payloads.append(']').toString());
      ps.setObject(i++, Sql.ts(asOf));
      ps.setArray(i++, Sql.uuidArray(connection, realtimeConferences));
      ps.setArray(i++, Sql.textArray(connection, realtimeKinds));
      ps.setObject(i++, Sql.ts(asOf));
      ps.setArray(i++, Sql.uuidArray(connection, stopConferences));
      ps.setArray(i++, Sql.uuidArray(connection, stopRecordings));
      ps.setArray(i++, Sql.textArray(connection, stopReasons));
      Set<UUID> closed = new HashSet<>(n * 2);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          closed.add(rs.getObject(1, UUID.class));
        }
      }
      return closed;
    }
  }

  @Override
  public void recordFailures(
      Map<UUID, String> errors, Instant asOf, Duration retryBase, Duration retryCap) {
    List<UUID> ids = new ArrayList<>(errors.keySet());
    List<String> messages = new ArrayList<>(errors.size());
    for (String m : errors.values()) {
      messages.add(m.length() > MAX_ERROR_LENGTH ? m.substring(0, MAX_ERROR_LENGTH) : m);
    }
    Savepoint savepoint = null;
    try {
      savepoint = connection.setSavepoint();
      try (PreparedStatement ps = connection.prepareStatement(RECORD_FAILURES)) {
        ps.setObject(1, Sql.ts(asOf));
        ps.setObject(2, Sql.ts(asOf));
        ps.setLong(3, retryCap.toMillis());
        ps.setLong(4, retryBase.toMillis());
        ps.setArray(5, Sql.uuidArray(connection, ids));
        ps.setArray(6, Sql.textArray(connection, messages));
        ps.executeUpdate();
      }
      connection.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      if (savepoint == null || !Sql.isDataError(e)) {
        throw new StoreException("recording poison rows failed: " + Sql.describe(e), e);
      }
      // The bookkeeping itself is rejected by the row (e.g. a trigger): keep the healthy rows'
      // closes.
      try {
        connection.rollback(savepoint);
      } catch (SQLException rollbackFailure) {
        throw new StoreException(
            "recording poison rows failed: " + Sql.describe(rollbackFailure), rollbackFailure);
      }
      log.atWarn()
          .addKeyValue("conferenceIds", ids)
          .addKeyValue("reason", Sql.describe(e))
          .log("could not keep the error on poison rows; they are logged only");
    }
  }

  @Override
  public void commit() {
    try {
      connection.commit();
      committed = true;
    } catch (SQLException e) {
      throw new StoreException("commit failed: " + Sql.describe(e), e);
    }
  }

  @Override
  public void close() {
    if (committed) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // Already committed; nothing left to free.
      }
    } else {
      PostgresReaperStore.endQuietly(connection);
    }
  }
}
