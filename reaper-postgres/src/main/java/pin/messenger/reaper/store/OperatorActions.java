package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.PauseState;

/**
 * What {@code bin/reaper pause / resume / retry / requeue} change, each in one transaction that
 * first locks and reads the rows it is about to change (the plan the command prints), then changes
 * exactly those — guarded, its row count checked — and writes the audit row ({@code
 * messenger.conference_reaper_audit}) before it commits. An action that matches more than one row
 * changes nothing unless confirmed; one that matches nothing changes nothing.
 */
public final class OperatorActions {
  /** Live rows in poison backoff: one ({@code id}) or all (null). Parameters: asOf, id, id. */
  static final String BACKING_OFF =
      """
      SELECT id, status, reaper_attempts, reaper_last_error, reaper_last_error_at, reaper_next_attempt_at
        FROM messenger.conference_sessions
       WHERE status IN ('Provisioning', 'Active') AND reaper_next_attempt_at > ?
         AND (?::uuid IS NULL OR id = ?)
       ORDER BY reaper_next_attempt_at, id FOR UPDATE
      """;

  /**
   * Ends the backoff: the next cycle claims the row again (its deadline, armed at the backoff's
   * end, is cleared too: {@link Deadlines}). The error history (attempts, last error and when)
   * stays, so a retry that fails again backs off from where it was.
   */
  static final String RETRY =
      """
      UPDATE messenger.conference_sessions SET reaper_next_attempt_at = NULL, reaper_window_start = '-infinity'
       WHERE id = ANY(?) AND status IN ('Provisioning', 'Active') AND reaper_next_attempt_at IS NOT NULL
      RETURNING id
      """;

  static final String SESSION_STATE =
      "SELECT status, reaper_next_attempt_at FROM messenger.conference_sessions WHERE id = ?";

  /** Quarantined, unpublished outbox rows quarantined at or after a moment (null: any). */
  static final String QUARANTINED =
      """
      SELECT id, message_key, seq, attempts, last_error, quarantined_at
        FROM messenger.integration_outbox
       WHERE quarantined_at IS NOT NULL AND published_at IS NULL
         AND quarantined_at >= coalesce(?::timestamptz, '-infinity')
       ORDER BY seq FOR UPDATE
      """;

  /**
   * Back to pending with their id (the CloudEvents {@code ce_id}) and payload unchanged: the relay
   * takes them as new, from attempt 0. Their seq keeps them ahead of their key's later rows.
   */
  static final String REQUEUE_QUARANTINED =
      """
      UPDATE messenger.integration_outbox
         SET quarantined_at = NULL, attempts = 0, next_attempt_at = NULL, locked_until = NULL, locked_by = NULL
       WHERE id = ANY(?) AND quarantined_at IS NOT NULL AND published_at IS NULL
      RETURNING id
      """;

  /** Given-up, undelivered recorder stop requests given up at or after a moment (null: any). */
  static final String GIVEN_UP =
      """
      SELECT id, recording_id, conference_id, attempts, last_error, gave_up_at
        FROM messenger.recorder_stop_requests
       WHERE gave_up_at IS NOT NULL AND delivered_at IS NULL
         AND gave_up_at >= coalesce(?::timestamptz, '-infinity')
       ORDER BY created_at, id FOR UPDATE
      """;

  /** Back to pending with their id (the {@code Idempotency-Key}) unchanged, from attempt 0. */
  static final String REQUEUE_GIVEN_UP =
      """
      UPDATE messenger.recorder_stop_requests
         SET gave_up_at = NULL, attempts = 0, next_attempt_at = NULL, locked_until = NULL, locked_by = NULL
       WHERE id = ANY(?) AND gave_up_at IS NOT NULL AND delivered_at IS NULL
      RETURNING id
      """;

  /**
   * Which audit rows {@link #recent(AuditFilter)} reads.
   *
   * @param action only this action (e.g. {@code end}, {@code pause}), or any
   * @param actor only this actor, or any
   * @param since only rows at or after this moment, or any
   * @param limit at most this many, newest first
   */
  public record AuditFilter(
      @Nullable OperatorAction action,
      @Nullable String actor,
      @Nullable Instant since,
      int limit) {}

  /** Who acts, when, why and with what arguments (as the audit row records them). */
  public record Request(
      OperatorAction action,
      String actor,
      Instant at,
      @Nullable String reason,
      Map<String, @Nullable Object> arguments,
      boolean confirmed) {}

  /** What happened to an action. */
  public enum Result {
    /** Changed: the rows, and the audit row. */
    APPLIED,
    /** More than one row and not confirmed: nothing changed. */
    PLAN_ONLY,
    /** Nothing matched: nothing changed. */
    NOTHING
  }

  /**
   * An action's outcome.
   *
   * @param rows what it changed (or would change), as it was before
   * @param auditId the audit row, when applied
   * @param message why nothing matched, or what is still in force after the change (a phase's pause
   *     lifted while the whole reaper stays paused); or null
   */
  public record Outcome(
      Result result,
      List<Map<String, Object>> rows,
      @Nullable Long auditId,
      @Nullable String message) {}

  private final DataSource dataSource;
  private final PauseActions pauses;

  public OperatorActions(DataSource dataSource) {
    this.dataSource = dataSource;
    this.pauses = new PauseActions(dataSource);
  }

  /**
   * Pauses {@code scope} ({@link PauseState#ALL} or a phase) until {@code until} (null: resume).
   */
  public Outcome pause(Request request, String scope, @Nullable Instant until) throws SQLException {
    return pauses.pause(request, scope, until);
  }

  /**
   * Lifts the pause in force of {@code scope}, or every pause in force when it is null; see {@link
   * PauseActions#resume}.
   */
  public Outcome resume(Request request, @Nullable String scope) throws SQLException {
    return pauses.resume(request, scope);
  }

  /**
   * Ends the poison backoff of one conference ({@code id}) or of every live row in backoff (null).
   */
  public Outcome retry(Request request, @Nullable UUID id) throws SQLException {
    return ActionTransaction.run(
        dataSource,
        request,
        c -> Jdbc.rows(c, BACKING_OFF, Jdbc.ts(request.at()), id, id),
        (c, rows) ->
            ActionTransaction.update(c, RETRY, Jdbc.uuidArray(c, ActionTransaction.ids(rows))),
        id == null ? "no conference is in poison backoff" : null);
  }

  /** Quarantined outbox rows back to pending (since {@code since}, or all when null). */
  public Outcome requeueQuarantined(Request request, @Nullable Instant since) throws SQLException {
    return requeue(
        request,
        since,
        QUARANTINED,
        REQUEUE_QUARANTINED,
        "no quarantined outbox row" + (since == null ? "" : " quarantined since " + since));
  }

  /** Given-up recorder stop requests back to pending (since {@code since}, or all when null). */
  public Outcome requeueGivenUp(Request request, @Nullable Instant since) throws SQLException {
    return requeue(
        request,
        since,
        GIVEN_UP,
        REQUEUE_GIVEN_UP,
        "no given-up recorder stop request" + (since == null ? "" : " given up since " + since));
  }

  /**
   * The failed rows {@code select} finds (since {@code since}) back to pending by {@code update}.
   */
  private Outcome requeue(
      Request request, @Nullable Instant since, String select, String update, String noneFound)
      throws SQLException {
    return ActionTransaction.run(
        dataSource,
        request,
        c -> Jdbc.rows(c, select, Jdbc.ts(since)),
        (c, rows) ->
            ActionTransaction.update(c, update, Jdbc.uuidArray(c, ActionTransaction.ids(rows))),
        noneFound);
  }

  /** The newest audit rows, newest first; {@code arguments} as a map. */
  public List<Map<String, Object>> recent(int limit) throws SQLException {
    return recent(new AuditFilter(null, null, null, limit));
  }

  /**
   * The newest audit rows matching {@code filter}, newest first: {@code arguments} as a map, and
   * {@code ids}, every id the action changed, in place of the full {@code changed} document.
   */
  public List<Map<String, Object>> recent(AuditFilter filter) throws SQLException {
    return AuditTrail.recent(dataSource, filter);
  }

  /** Why {@code retry <id>} found nothing: no such conference, terminal, or not backing off. */
  public String whyNotRetryable(UUID id, Instant asOf) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      List<Map<String, Object>> found = Jdbc.rows(c, SESSION_STATE, id);
      if (found.isEmpty()) {
        return "no conference " + id;
      }
      Object status = found.get(0).get("status");
      if (!"Provisioning".equals(status) && !"Active".equals(status)) {
        return "conference " + id + " is " + status + ": the reaper is done with it";
      }
      Object next = found.get(0).get("reaper_next_attempt_at");
      return "conference "
          + id
          + " is not in poison backoff"
          + (next == null ? "" : " (its retry time " + next + " has passed)")
          + ": the next cycle considers it anyway";
    }
  }
}
