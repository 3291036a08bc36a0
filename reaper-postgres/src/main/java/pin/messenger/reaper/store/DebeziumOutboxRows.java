package pin.messenger.reaper.store;

import pin.messenger.reaper.core.ConferenceEndedEvent;

/**
 * The integration event's row for {@code reaper.outbox.mode=debezium}: one row in {@code
 * messenger.integration_outbox_debezium} (V9), in the layout Debezium's outbox event router reads,
 * holding the record exactly as the relay would send it (docs/contract/conference-ended.v1.md):
 * {@code aggregatetype} is the topic, {@code aggregateid} the key (dealId), {@code payload} the
 * value, and one column per CloudEvents header, placed as a header by the connector configuration
 * in ops/kafka-connect/. {@code tracingspancontext} is the router's tracing column: the cycle's
 * {@code traceparent} as {@link java.util.Properties} text, from which the connector's
 * OpenTelemetry makes the record's {@code traceparent} (a span under the cycle's, as the relay's
 * producer span is).
 *
 * <p>Insert-only: the same transaction deletes the row again before it commits ({@link #DELETE}).
 * Debezium reads the insert from the write-ahead log, which keeps it whatever happens to the row
 * afterwards, and the connector skips deletes. So the table never holds a committed row: nothing to
 * sweep, no retention to tune, no index to grow, and no update for the router to reject. What was
 * published is on the topic, not in the table.
 */
public final class DebeziumOutboxRows {

  /** The table, as V9 creates it. */
  public static final String TABLE = "messenger.integration_outbox_debezium";

  /** CloudEvents spec version of the headers (as the relay's {@code CloudEventRecord}). */
  static final String SPEC_VERSION = "1.0";

  /** The CloudEvents {@code type} prefix of an outbox row's {@code event_type}. */
  static final String TYPE_PREFIX = "pin.messenger.";

  /**
   * Empties the table of what this transaction inserted (rows of other transactions are not visible
   * to it before they commit, and each of those deletes its own). Run before commit.
   */
  static final String DELETE = "DELETE FROM " + TABLE;

  /**
   * The insert, with {@link TransitionWriter#RELAY_EVENTS}' parameters in the same order (topic,
   * event type, the close moment, correlation id, trace context, conference ids, payloads); %1$s is
   * the CloudEvents {@code source} as a SQL literal. {@code ce_time} is the close moment in UTC in
   * the form {@link java.time.format.DateTimeFormatter#ISO_INSTANT} gives the relay's (fraction in
   * groups of three digits, none when zero).
   */
  private static final String EVENTS =
      """

        INSERT INTO messenger.integration_outbox_debezium
               (id, aggregatetype, aggregateid, type, payload, ce_specversion, ce_type, ce_source, ce_time,
                ce_subject, ce_dataschema, ce_correlationid, ce_traceparent, tracingspancontext, content_type)
        SELECT gen_random_uuid(), x.topic, closed.deal_id::text, y.ce_type, p.payload, '%2$s', y.ce_type, %1$s,
               to_char(x.utc, 'YYYY-MM-DD"T"HH24:MI:SS')
                 || CASE WHEN to_char(x.utc, 'US') = '000000' THEN ''
                         WHEN right(to_char(x.utc, 'US'), 3) = '000' THEN '.' || left(to_char(x.utc, 'US'), 3)
                         ELSE '.' || to_char(x.utc, 'US') END
                 || 'Z',
               p.payload->>'conferenceId', %3$s, x.correlation_id, x.trace_parent,
               'traceparent=' || x.trace_parent, 'application/json'
          FROM (SELECT ?::text AS topic, ?::text AS event_type, (?::timestamptz) AT TIME ZONE 'UTC' AS utc,
                       ?::text AS correlation_id, ?::text AS trace_parent) x
         CROSS JOIN LATERAL (SELECT CASE WHEN x.event_type LIKE '%4$s%%' THEN x.event_type
                                         ELSE '%4$s' || x.event_type END AS ce_type) y
         CROSS JOIN unnest(?::uuid[]) WITH ORDINALITY AS e(conference_id, n)
          JOIN jsonb_array_elements(?::jsonb) WITH ORDINALITY AS p(payload, n) ON p.n = e.n
          JOIN closed ON closed.id = e.conference_id""";

  private final String apply;
  private final String applyReporting;

  /**
   * The rows with {@code source} as their CloudEvents {@code source} ({@code reaper.relay.source}).
   */
  public DebeziumOutboxRows(String source) {
    String events =
        EVENTS.formatted(
            literal(source), SPEC_VERSION, literal(ConferenceEndedEvent.DATA_SCHEMA), TYPE_PREFIX);
    this.apply = TransitionWriter.apply(events);
    this.applyReporting = TransitionWriter.applyReporting(events);
  }

  /** The batch write under its savepoint, the delete before the savepoint is released. */
  String underSavepoint(boolean checkingLock) {
    String sql =
        "SAVEPOINT "
            + TransitionWriter.SAVEPOINT
            + ";\n"
            + apply
            + ";\n"
            + DELETE
            + ";\nRELEASE SAVEPOINT "
            + TransitionWriter.SAVEPOINT;
    return checkingLock ? sql + ";\nSELECT " + AdvisoryRunLock.HELD_BY + " AS run_lock_held" : sql;
  }

  /**
   * {@link TransitionWriter#APPLY_REPORTING} writing here; the caller runs {@link #DELETE} after.
   */
  String applyReporting() {
    return applyReporting;
  }

  /** A SQL string literal (standard_conforming_strings, on since PostgreSQL 9.1). */
  static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
