package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import pin.messenger.reaper.core.StoreException;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * Checks, where the messenger owns the schema ({@code reaper.schema.migrate=false}), that every
 * table and column the worker reads or writes exists, and fails naming each one that does not.
 */
public final class SchemaVerifier {

  /** Every table and column the worker touches. */
  static final Map<String, List<String>> REQUIRED = new LinkedHashMap<>();

  static {
    REQUIRED.put(
        "conference_sessions",
        List.of(
            "id",
            "chat_id",
            "deal_id",
            "tenant_id",
            "media_type",
            "status",
            "end_reason",
            "started_by_user_id",
            "created_at",
            "started_at",
            "ended_at",
            "last_activity_at",
            "updated_at",
            "active_participant_count",
            "peak_participant_count",
            "duration_seconds",
            "reaper_attempts",
            "reaper_last_error",
            "reaper_last_error_at",
            "reaper_next_attempt_at",
            "reaper_error_history",
            // The reaper's deadline (V8), read and written by every cycle.
            "reaper_window_start"));
    REQUIRED.put(
        "conference_participants", List.of("conference_id", "user_id", "joined_at", "left_at"));
    REQUIRED.put(
        "call_recordings",
        List.of("id", "conference_id", "status", "created_at", "updated_at", "external_id"));
    REQUIRED.put(
        "integration_outbox",
        List.of(
            "id",
            "topic",
            "message_key",
            "event_type",
            "payload",
            "occurred_at",
            "correlation_id",
            "published_at",
            "seq",
            "attempts",
            "last_error",
            "next_attempt_at",
            "locked_until",
            "locked_by",
            "quarantined_at",
            "trace_parent"));
    REQUIRED.put(
        "realtime_outbox",
        List.of(
            "id",
            "kind",
            "target_kind",
            "chat_id",
            "session_kind",
            "conference_id",
            "created_at",
            "dispatched_at"));
    REQUIRED.put(
        "recorder_stop_requests",
        List.of(
            "id",
            "recording_id",
            "conference_id",
            "reason",
            "created_at",
            "delivered_at",
            "attempts",
            "last_error",
            "next_attempt_at",
            "locked_until",
            "locked_by",
            "gave_up_at",
            "external_id",
            "trace_parent"));
    // Operators' pauses, read by every cycle (V3).
    REQUIRED.put(
        "conference_reaper_pauses", List.of("scope", "reason", "actor", "paused_at", "until"));
    // Who is running: every worker refreshes its row each cycle (V7).
    REQUIRED.put(
        "conference_reaper_runners",
        List.of(
            "instance_id",
            "host",
            "pid",
            "version",
            "started_at",
            "last_seen_at",
            "silent_after_ms",
            "last_cycle_id",
            "last_cycle_started_at",
            "last_cycle_completed_at",
            "last_cycle_held_lock",
            "paused_phases",
            "stopped_at"));
    // The audit trail, written by the operator actions and read by audit (V3, db_role V7).
    REQUIRED.put(
        "conference_reaper_audit",
        List.of(
            "id",
            "at",
            "actor",
            "action",
            "arguments",
            "reason",
            "rows_changed",
            "changed",
            "db_role"));
  }

  /**
   * What {@code reaper.outbox.mode=debezium} writes besides (V9): Debezium's outbox table, every
   * column the transition fills.
   */
  static final Map<String, List<String>> REQUIRED_FOR_DEBEZIUM =
      Map.of(
          "integration_outbox_debezium",
          List.of(
              "id",
              "aggregatetype",
              "aggregateid",
              "type",
              "payload",
              "ce_specversion",
              "ce_type",
              "ce_source",
              "ce_time",
              "ce_subject",
              "ce_dataschema",
              "ce_correlationid",
              "ce_traceparent",
              "tracingspancontext",
              "content_type"));

  static final String COLUMNS =
      """
      SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ?
      """;

  /** The partial indexes the cycle's statements read (V1/V6, V8), checked by name. */
  static final List<String> INDEXES =
      List.of("ix_conf_active", "ix_conf_due", "ix_conf_backoff", "ix_conf_poison");

  static final String INDEX =
      """
      SELECT indexname FROM pg_indexes WHERE schemaname = ?
      """;

  private SchemaVerifier() {}

  /**
   * Returns the missing items ("messenger.t.c", or "index messenger.ix_conf_active"); empty when
   * all exist.
   */
  public static List<String> missing(DataSource dataSource) {
    return missing(dataSource, OutboxOptions.defaults());
  }

  /** As {@link #missing(DataSource)}, with what {@code outbox}'s mode writes. */
  public static List<String> missing(DataSource dataSource, OutboxOptions outbox) {
    Set<String> present = new HashSet<>();
    Set<String> indexes = new HashSet<>();
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(COLUMNS)) {
        ps.setString(1, SchemaMigrations.SCHEMA);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            present.add(rs.getString(1) + "." + rs.getString(2));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement(INDEX)) {
        ps.setString(1, SchemaMigrations.SCHEMA);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            indexes.add(rs.getString(1));
          }
        }
      }
    } catch (SQLException e) {
      throw new StoreException("could not read the schema: " + Jdbc.describe(e), e);
    }
    List<String> missing = new ArrayList<>();
    Map<String, List<String>> required = new LinkedHashMap<>(REQUIRED);
    if (outbox.mode() == OutboxOptions.Mode.DEBEZIUM) {
      required.putAll(REQUIRED_FOR_DEBEZIUM);
    }
    required.forEach(
        (table, columns) -> {
          for (String column : columns) {
            if (!present.contains(table + "." + column)) {
              missing.add(SchemaMigrations.SCHEMA + "." + table + "." + column);
            }
          }
        });
    for (String index : INDEXES) {
      if (!indexes.contains(index)) {
        missing.add("index " + SchemaMigrations.SCHEMA + "." + index);
      }
    }
    return missing;
  }

  /**
   * Fails with a message naming every missing table column (and partial index) when anything is
   * missing.
   */
  public static void verify(DataSource dataSource) {
    verify(dataSource, OutboxOptions.defaults());
  }

  /** As {@link #verify(DataSource)}, with what {@code outbox}'s mode writes. */
  public static void verify(DataSource dataSource, OutboxOptions outbox) {
    List<String> missing = missing(dataSource, outbox);
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "The messenger schema lacks what conference-room-reaper needs (reaper.schema.migrate=false): missing "
              + String.join(", ", missing)
              + ". Apply the reaper's migrations (bin/reaper migrate) or add them to the messenger's.");
    }
  }
}
