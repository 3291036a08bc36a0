package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ConferenceSession;
import pin.messenger.reaper.core.CycleOrigin;
import pin.messenger.reaper.core.ManualEnd;
import pin.messenger.reaper.core.Transition;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Request;
import pin.messenger.reaper.store.OperatorActions.Result;

/**
 * {@code bin/reaper end <id>}: one transaction that locks the conference's row, decides with {@link
 * ManualEnd} (the reaper's own decision, under the row lock), writes the transition with the
 * reaper's own statement ({@link TransitionWriter#APPLY_REPORTING}: status, end reason, {@code
 * ended_at}, duration, outbox, realtime and recorder-stop rows), and the audit row naming every row
 * it wrote, then commits. Refused or undecided: nothing is written, no audit row.
 */
public final class OperatorEnd {

  /**
   * The row as the claim reads it ({@link SessionRow#read}), locked; waits at most lock_timeout.
   */
  static final String ROW =
      """
      SELECT c.id, c.chat_id, c.deal_id, c.tenant_id, c.media_type, c.status, c.end_reason,
             c.started_by_user_id, c.created_at, c.started_at, c.last_activity_at, c.ended_at,
             c.active_participant_count, c.peak_participant_count, c.reaper_attempts,
             c.reaper_last_error, c.reaper_next_attempt_at,
      """
          + SessionRow.EVENT_COLUMNS
          + """

        FROM messenger.conference_sessions c
       WHERE c.id = ?
         FOR UPDATE OF c
      """;

  private final DataSource dataSource;
  private final @Nullable DebeziumOutboxRows debezium;

  public OperatorEnd(DataSource dataSource) {
    this.dataSource = dataSource;
    this.debezium = null;
  }

  /** Ends conferences writing the integration event as {@code store}'s outbox mode says. */
  public OperatorEnd(DataSource dataSource, PostgresReaperStore store) {
    this.dataSource = dataSource;
    this.debezium = store.debeziumRows();
  }

  /**
   * Ends conference {@code id} at {@code request.at()} as the reaper would, or says why not. The
   * outcome's row is the conference as it was, with the ids written ({@code written}) when applied;
   * {@code message} names the phase, or the refusal, or the choice to make ({@link
   * Result#PLAN_ONLY}).
   */
  public Outcome end(
      Request request, UUID id, ManualEnd.Choice choice, ConferenceRoomReaperOptions options)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (Statement st = c.createStatement()) {
          st.executeQuery(ActionTransaction.LIMITS).close();
        }
        Map<String, Object> before = new LinkedHashMap<>();
        ConferenceSession session = null;
        try (PreparedStatement ps = c.prepareStatement(ROW)) {
          ps.setObject(1, id);
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              session = SessionRow.read(rs);
              for (String column :
                  List.of(
                      "id",
                      "status",
                      "end_reason",
                      "created_at",
                      "started_at",
                      "last_activity_at",
                      "active_participant_count",
                      "reaper_attempts",
                      "reaper_last_error")) {
                Object v = rs.getObject(column);
                before.put(column, v instanceof java.sql.Timestamp ? Jdbc.instant(rs, column) : v);
              }
            }
          }
        }
        if (session == null) {
          c.rollback();
          return new Outcome(Result.NOTHING, List.of(), null, "no conference " + id);
        }
        ManualEnd.Result decided = ManualEnd.decide(session, request.at(), options, choice);
        if (decided instanceof ManualEnd.Result.Refused refused) {
          c.rollback();
          return new Outcome(
              Result.NOTHING, List.of(before), null, "conference " + id + ": " + refused.reason());
        }
        if (decided instanceof ManualEnd.Result.NeedsChoice needs) {
          c.rollback();
          return new Outcome(
              Result.PLAN_ONLY, List.of(before), null, "conference " + id + ": " + needs.reason());
        }
        ManualEnd.Result.End end = (ManualEnd.Result.End) decided;
        Transition t = end.transition();
        // The operator's action is the "cycle" these rows come from: its id is their correlation
        // id, and the audit row's arguments carry it.
        String correlation = String.valueOf(request.arguments().get("correlationId"));
        Map<String, List<UUID>> written =
            new TransitionWriter(c, debezium)
                .writeReporting(t, CycleOrigin.of(correlation), request.at());
        if (!written.getOrDefault("conference", List.of()).contains(id)) {
          // The row is locked since the select: a guard that lets nothing through is a bug.
          throw new IllegalStateException("end: the status guard let nothing through for " + id);
        }
        Map<String, Object> row = new LinkedHashMap<>(before);
        row.put("phase", end.phase().label());
        row.put("to", t.to().name());
        row.put("endReason", t.endReason().name());
        row.put("endedAt", t.endedAt());
        row.put("durationSeconds", t.durationSeconds());
        row.put("event", t.event() != null);
        Map<String, List<UUID>> rows = new LinkedHashMap<>(written);
        rows.remove("conference");
        row.put("written", rows);
        List<Map<String, Object>> changed = new ArrayList<>(List.of(row));
        long auditId = AuditTrail.write(c, request, changed);
        c.commit();
        return new Outcome(Result.APPLIED, changed, auditId, "closed as " + end.phase().label());
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }
}
