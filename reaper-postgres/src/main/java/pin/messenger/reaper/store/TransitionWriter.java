package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.CycleOrigin;
import pin.messenger.reaper.core.Transition;

/**
 * The set-based write of a batch's transitions: one statement for any number of rows, with the
 * status guard in its {@code WHERE} and the outbox rows joined to exactly the rows the guard let
 * through.
 */
final class TransitionWriter {

  /**
   * The batch's writes in one statement: status-guarded transitions, then for exactly the rows the
   * guard let through, the integration-outbox, realtime-outbox and recorder-stop rows. Returns the
   * ids actually closed. The outbox and recorder-stop rows carry the cycle's correlation id and
   * trace context ({@link CycleOrigin}); realtime rows have no column for either (the messenger's
   * table).
   */
  static final String APPLY;

  /**
   * {@link #APPLY} that also returns every row it wrote, by kind ({@code conference}, {@code
   * integrationOutbox}, {@code realtimeOutbox}, {@code recorderStopRequests}): the operator's
   * {@code end}, whose audit row names them. The same statement text, so the two cannot disagree.
   */
  static final String APPLY_REPORTING;

  /**
   * The integration event's insert for {@code reaper.outbox.mode=relay}; {@link DebeziumOutboxRows}
   * has the other mode's, with the same parameters in the same order.
   */
  static final String RELAY_EVENTS =
      """

        INSERT INTO messenger.integration_outbox
               (id, topic, message_key, event_type, payload, occurred_at, correlation_id, trace_parent)
        SELECT gen_random_uuid(), ?, closed.deal_id::text, ?, p.payload, ?, ?, ?
          FROM unnest(?::uuid[]) WITH ORDINALITY AS e(conference_id, n)
          JOIN jsonb_array_elements(?::jsonb) WITH ORDINALITY AS p(payload, n) ON p.n = e.n
          JOIN closed ON closed.id = e.conference_id""";

  /**
   * %1$s: what each outbox insert returns (nothing, or its id); %2$s: the final select; %3$s: the
   * integration event's insert ({@link #RELAY_EVENTS} or {@link DebeziumOutboxRows#events}).
   */
  static final String APPLY_TEMPLATE =
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
      ), events AS (%3$s%1$s
      ), realtime AS (
        INSERT INTO messenger.realtime_outbox
               (id, kind, target_kind, chat_id, session_kind, conference_id, created_at)
        SELECT gen_random_uuid(), r.kind, 'ChatGroup', closed.chat_id, 'Conference', closed.id, ?
          FROM unnest(?::uuid[], ?::text[]) AS r(conference_id, kind)
          JOIN closed ON closed.id = r.conference_id%1$s
      ), stops AS (
        INSERT INTO messenger.recorder_stop_requests
               (id, recording_id, conference_id, reason, created_at, external_id, trace_parent)
        SELECT gen_random_uuid(), x.recording_id, closed.id, x.reason, ?, r.external_id, ?
          FROM unnest(?::uuid[], ?::uuid[], ?::text[]) AS x(conference_id, recording_id, reason)
          JOIN closed ON closed.id = x.conference_id
          LEFT JOIN messenger.call_recordings r ON r.id = x.recording_id%1$s
      )
      %2$s
      """;

  static {
    APPLY = apply(RELAY_EVENTS);
    APPLY_REPORTING = applyReporting(RELAY_EVENTS);
  }

  /** {@link #APPLY} with {@code events} as the integration event's insert. */
  static String apply(String events) {
    return APPLY_TEMPLATE.formatted("", "SELECT id FROM closed", events);
  }

  /** {@link #APPLY_REPORTING} with {@code events} as the integration event's insert. */
  static String applyReporting(String events) {
    return APPLY_TEMPLATE.formatted(
        "\n  RETURNING id",
        """
        SELECT 'conference' AS kind, id FROM closed
        UNION ALL SELECT 'integrationOutbox', id FROM events
        UNION ALL SELECT 'realtimeOutbox', id FROM realtime
        UNION ALL SELECT 'recorderStopRequests', id FROM stops""",
        events);
  }

  /** The savepoint each write runs under; on a data error it is rolled back to and released. */
  static final String SAVEPOINT = "reaper_write";

  /**
   * {@link #APPLY} under its own savepoint, in one round trip (pgjdbc sends the statements before
   * one Sync; after an error the server skips the rest): on success the savepoint is released in
   * the same round trip, on a data error the transaction stays usable from the savepoint.
   */
  static final String APPLY_UNDER_SAVEPOINT =
      "SAVEPOINT " + SAVEPOINT + ";\n" + APPLY + ";\nRELEASE SAVEPOINT " + SAVEPOINT;

  /** The same, and the run lock's check after the write ({@link AdvisoryRunLock#HELD_BY}). */
  static final String APPLY_UNDER_SAVEPOINT_CHECKING_LOCK =
      APPLY_UNDER_SAVEPOINT + ";\nSELECT " + AdvisoryRunLock.HELD_BY + " AS run_lock_held";

  /** Undoes a failed write and drops its savepoint. */
  static final String UNDO =
      "ROLLBACK TO SAVEPOINT " + SAVEPOINT + "; RELEASE SAVEPOINT " + SAVEPOINT;

  /**
   * What one write did.
   *
   * @param closed the ids its status guard let through
   * @param runLockHeld the run lock's check after the write; null when not asked
   */
  record Written(Set<UUID> closed, @Nullable Boolean runLockHeld) {}

  private final Connection connection;
  private final @Nullable DebeziumOutboxRows debezium;

  TransitionWriter(Connection connection) {
    this(connection, null);
  }

  /**
   * A writer whose integration events go to Debezium's outbox table ({@code
   * reaper.outbox.mode=debezium}) when {@code debezium} is given, else to the relay's.
   */
  TransitionWriter(Connection connection, @Nullable DebeziumOutboxRows debezium) {
    this.connection = connection;
    this.debezium = debezium;
  }

  /**
   * Writes {@code part} in one statement under a savepoint of its own, in one round trip; with a
   * {@code lockPid}, checks the run lock after the write on the same round trip. A data error
   * leaves the transaction at the savepoint: call {@link #undo} before anything else.
   */
  Written write(List<Transition> part, CycleOrigin origin, Instant asOf, @Nullable Integer lockPid)
      throws SQLException {
    String sql =
        debezium != null
            ? debezium.underSavepoint(lockPid != null)
            : lockPid == null ? APPLY_UNDER_SAVEPOINT : APPLY_UNDER_SAVEPOINT_CHECKING_LOCK;
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      int i = bind(ps, part, origin, asOf);
      int n = part.size();
      if (lockPid != null) {
        ps.setInt(i++, lockPid);
        ps.setString(i, AdvisoryRunLock.NAME);
      }
      Set<UUID> closed = new HashSet<>(n * 2);
      Boolean held = null;
      int resultSets = 0;
      // The results in order: SAVEPOINT (a count), the write's ids, RELEASE (a count), the check.
      boolean isResultSet = ps.execute();
      while (isResultSet || ps.getUpdateCount() != -1) {
        if (isResultSet) {
          try (ResultSet rs = ps.getResultSet()) {
            if (resultSets++ == 0) {
              while (rs.next()) {
                closed.add(rs.getObject(1, UUID.class));
              }
            } else {
              rs.next();
              held = rs.getBoolean(1);
            }
          }
        }
        isResultSet = ps.getMoreResults();
      }
      return new Written(closed, held);
    }
  }

  /**
   * Writes one transition with {@link #APPLY_REPORTING} (no savepoint: the caller's transaction is
   * the unit) and returns the ids it wrote by kind; an empty map when the status guard let nothing
   * through.
   */
  java.util.Map<String, List<UUID>> writeReporting(
      Transition transition, CycleOrigin origin, Instant asOf) throws SQLException {
    java.util.Map<String, List<UUID>> written = new java.util.LinkedHashMap<>();
    String sql = debezium != null ? debezium.applyReporting() : APPLY_REPORTING;
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      bind(ps, List.of(transition), origin, asOf);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          written
              .computeIfAbsent(rs.getString("kind"), k -> new ArrayList<>())
              .add(rs.getObject("id", UUID.class));
        }
      }
    }
    if (debezium != null) {
      try (Statement st = connection.createStatement()) {
        st.executeUpdate(DebeziumOutboxRows.DELETE);
      }
    }
    return written;
  }

  /** Binds {@link #APPLY}'s parameters for {@code part}; returns the next parameter index. */
  private int bind(PreparedStatement ps, List<Transition> part, CycleOrigin origin, Instant asOf)
      throws SQLException {
    int n = part.size();
    List<UUID> ids = new ArrayList<>(n);
    List<String> from = new ArrayList<>(n);
    List<String> to = new ArrayList<>(n);
    List<String> reasons = new ArrayList<>(n);
    List<Long> durations = new ArrayList<>(n);
    List<UUID> eventConferences = new ArrayList<>(n);
    // The payloads travel as one JSON array, not a text[]: a text[] literal makes the driver escape
    // every character of every payload (the hottest frame of the drain profile,
    // docs/benchmarks.md).
    // Row ids are made by PostgreSQL (gen_random_uuid()): 3 SecureRandom draws and 3 uuid[]
    // parameters fewer per closed row.
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
    int i = 1;
    ps.setArray(i++, Jdbc.uuidArray(connection, ids));
    ps.setArray(i++, Jdbc.textArray(connection, from));
    ps.setArray(i++, Jdbc.textArray(connection, to));
    ps.setArray(i++, Jdbc.textArray(connection, reasons));
    ps.setArray(i++, Jdbc.bigintArray(connection, durations));
    ps.setObject(i++, Jdbc.ts(asOf));
    ps.setObject(i++, Jdbc.ts(asOf));
    ps.setString(i++, ConferenceEndedEvent.TOPIC);
    ps.setString(i++, ConferenceEndedEvent.EVENT_TYPE);
    ps.setObject(i++, Jdbc.ts(asOf));
    ps.setString(i++, origin.jobRunId());
    ps.setString(i++, origin.traceParent());
    ps.setArray(i++, Jdbc.uuidArray(connection, eventConferences));
    ps.setString(i++, payloads.append(']').toString());
    ps.setObject(i++, Jdbc.ts(asOf));
    ps.setArray(i++, Jdbc.uuidArray(connection, realtimeConferences));
    ps.setArray(i++, Jdbc.textArray(connection, realtimeKinds));
    ps.setObject(i++, Jdbc.ts(asOf));
    ps.setString(i++, origin.traceParent());
    ps.setArray(i++, Jdbc.uuidArray(connection, stopConferences));
    ps.setArray(i++, Jdbc.uuidArray(connection, stopRecordings));
    ps.setArray(i++, Jdbc.textArray(connection, stopReasons));
    return i;
  }

  /** After a write's data error: back to before the write, savepoint dropped (one round trip). */
  void undo() throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(UNDO);
    }
  }
}
