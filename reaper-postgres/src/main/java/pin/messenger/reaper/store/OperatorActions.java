package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.PauseState;
import tools.jackson.databind.json.JsonMapper;

/**
 * What {@code bin/reaper pause / resume / retry / requeue} change, each in one transaction that
 * first locks and reads the rows it is about to change (the plan the command prints), then changes
 * exactly those — guarded, its row count checked — and writes the audit row ({@code
 * messenger.conference_reaper_audit}) before it commits. An action that matches more than one row
 * changes nothing unless confirmed; one that matches nothing changes nothing.
 */
public final class OperatorActions {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Every statement of an action is bounded; a row held by a cycle is not waited for long. */
  static final String LIMITS =
      "SELECT set_config('statement_timeout', '10s', true), set_config('lock_timeout', '5s', true)";

  static final String PAUSE_OF =
      """
      SELECT scope, reason, actor, paused_at, until FROM messenger.conference_reaper_pauses
       WHERE scope = ? FOR UPDATE
      """;

  static final String PAUSE =
      """
      INSERT INTO messenger.conference_reaper_pauses AS p (scope, reason, actor, paused_at, until)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (scope) DO UPDATE
         SET reason = excluded.reason, actor = excluded.actor, paused_at = excluded.paused_at,
             until = excluded.until
      RETURNING scope
      """;

  /**
   * Every stored pause, locked: at most one per scope (its primary key), so four rows at most.
   * Which of them are in force is {@link PauseState.Pause#activeAt}'s to say, the rule the cycles,
   * {@code status} and the gauges use; a pause whose {@code until} has passed is kept until the
   * next pause of its scope replaces it, and is not in force.
   */
  static final String PAUSES =
      """
      SELECT scope, reason, actor, paused_at, until FROM messenger.conference_reaper_pauses
       ORDER BY scope FOR UPDATE
      """;

  static final String LIFT =
      "DELETE FROM messenger.conference_reaper_pauses WHERE scope = ANY(?) RETURNING scope";

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
   * Ends the backoff: the next cycle claims the row again. The error history (attempts, last error
   * and when) stays, so a retry that fails again backs off from where it was.
   */
  static final String RETRY =
      """
      UPDATE messenger.conference_sessions SET reaper_next_attempt_at = NULL
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

  static final String AUDIT =
      """
      INSERT INTO messenger.conference_reaper_audit (at, actor, action, arguments, reason, rows_changed, changed)
      VALUES (?, ?, ?, ?::jsonb, ?, ?, ?::jsonb)
      RETURNING id
      """;

  /**
   * The newest audit rows matching the filters, newest first; {@code db_role} is the database role
   * that wrote each (filled by the database, V7; null before). Parameters: action, action, actor,
   * actor, since, limit.
   */
  static final String RECENT =
      """
      SELECT id, at, actor, db_role, action, arguments::text AS arguments, reason, rows_changed,
             changed::text AS changed
        FROM messenger.conference_reaper_audit
       WHERE (?::text IS NULL OR action = ?)
         AND (?::text IS NULL OR actor = ?)
         AND at >= coalesce(?::timestamptz, '-infinity')
       ORDER BY id DESC LIMIT ?
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

  public OperatorActions(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Pauses {@code scope} ({@link PauseState#ALL} or a phase) until {@code until} (null: resume).
   */
  public Outcome pause(Request request, String scope, @Nullable Instant until) throws SQLException {
    return act(
        request,
        c -> {
          List<Map<String, Object>> before = Jdbc.rows(c, PAUSE_OF, scope);
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("scope", scope);
          row.put("until", until);
          // A pause that ended by itself is not replaced: nothing was in force.
          boolean inForce = !before.isEmpty() && pause(before.get(0)).activeAt(request.at());
          row.put("replaces", inForce ? before.get(0) : null);
          return List.of(row);
        },
        (c, rows) -> {
          try (PreparedStatement ps = c.prepareStatement(PAUSE)) {
            ps.setString(1, scope);
            ps.setString(2, request.reason());
            ps.setString(3, request.actor());
            ps.setObject(4, Jdbc.ts(request.at()));
            ps.setObject(5, Jdbc.ts(until));
            return count(ps);
          }
        },
        "");
  }

  /**
   * Lifts the pause in force of {@code scope}, or every pause in force when it is null. A pause
   * whose {@code until} has passed is not in force: nothing to lift, no audit row (its row stays
   * until the next pause of its scope replaces it). A phase held by a pause of the whole reaper has
   * no pause of its own to lift: nothing changes, and the message says what is in force and how to
   * lift it; when the phase had its own pause as well, that one is lifted and the message says the
   * phase stays paused.
   */
  public Outcome resume(Request request, @Nullable String scope) throws SQLException {
    List<PauseState.Pause> ended = new ArrayList<>();
    List<PauseState.Pause> whole = new ArrayList<>();
    Outcome outcome =
        act(
            request,
            c -> {
              List<Map<String, Object>> lift = new ArrayList<>();
              for (Map<String, Object> row : Jdbc.rows(c, PAUSES)) {
                PauseState.Pause p = pause(row);
                boolean asked = scope == null || scope.equals(p.scope());
                if (!p.activeAt(request.at())) {
                  if (asked) {
                    ended.add(p);
                  }
                } else if (asked) {
                  lift.add(row);
                } else if (PauseState.ALL.equals(p.scope())) {
                  whole.add(p);
                }
              }
              return lift;
            },
            (c, rows) ->
                update(
                    c,
                    LIFT,
                    Jdbc.textArray(c, rows.stream().map(r -> (String) r.get("scope")).toList())),
            null);
    return new Outcome(
        outcome.result(),
        outcome.rows(),
        outcome.auditId(),
        resumeMessage(scope, outcome.result(), whole, ended));
  }

  private static @Nullable String resumeMessage(
      @Nullable String scope,
      Result result,
      List<PauseState.Pause> whole,
      List<PauseState.Pause> ended) {
    if (scope != null && !whole.isEmpty()) {
      String inForce = "the whole reaper is paused " + describe(whole.get(0));
      return switch (result) {
        case APPLIED ->
            "'"
                + scope
                + "' stays paused: "
                + inForce
                + "; `bin/reaper resume` (no --phase) lifts it";
        case NOTHING ->
            "'"
                + scope
                + "' has no pause of its own: "
                + inForce
                + "; lift it with `bin/reaper resume` (no --phase), then pause again the phases"
                + " that should stay paused";
        case PLAN_ONLY -> null;
      };
    }
    if (result != Result.NOTHING) {
      return null;
    }
    if (scope != null) {
      return "'"
          + scope
          + "' is not paused"
          + (ended.isEmpty() ? "" : ": its pause ended by itself at " + ended.get(0).until());
    }
    List<String> endings = new ArrayList<>();
    for (PauseState.Pause p : ended) {
      endings.add(
          "the pause of "
              + (PauseState.ALL.equals(p.scope()) ? "the whole reaper" : p.scope())
              + " ended by itself at "
              + p.until());
    }
    return "nothing is paused" + (endings.isEmpty() ? "" : ": " + String.join(", ", endings));
  }

  /** {@code by bob since T, until resumed: reason}, as {@code status} shows a pause. */
  private static String describe(PauseState.Pause p) {
    return "by "
        + p.actor()
        + " since "
        + p.pausedAt()
        + ", "
        + (p.until() == null ? "until resumed" : "until " + p.until())
        + ": "
        + p.reason();
  }

  /** A row of {@link #PAUSES} or {@link #PAUSE_OF}. */
  private static PauseState.Pause pause(Map<String, Object> row) {
    return new PauseState.Pause(
        String.valueOf(row.get("scope")),
        String.valueOf(row.get("reason")),
        String.valueOf(row.get("actor")),
        (Instant) row.get("paused_at"),
        (Instant) row.get("until"));
  }

  /**
   * Ends the poison backoff of one conference ({@code id}) or of every live row in backoff (null).
   */
  public Outcome retry(Request request, @Nullable UUID id) throws SQLException {
    return act(
        request,
        c -> Jdbc.rows(c, BACKING_OFF, Jdbc.ts(request.at()), id, id),
        (c, rows) -> update(c, RETRY, Jdbc.uuidArray(c, ids(rows))),
        id == null ? "no conference is in poison backoff" : null);
  }

  /** Quarantined outbox rows back to pending (since {@code since}, or all when null). */
  public Outcome requeueQuarantined(Request request, @Nullable Instant since) throws SQLException {
    return act(
        request,
        c -> Jdbc.rows(c, QUARANTINED, Jdbc.ts(since)),
        (c, rows) -> update(c, REQUEUE_QUARANTINED, Jdbc.uuidArray(c, ids(rows))),
        "no quarantined outbox row" + (since == null ? "" : " quarantined since " + since));
  }

  /** Given-up recorder stop requests back to pending (since {@code since}, or all when null). */
  public Outcome requeueGivenUp(Request request, @Nullable Instant since) throws SQLException {
    return act(
        request,
        c -> Jdbc.rows(c, GIVEN_UP, Jdbc.ts(since)),
        (c, rows) -> update(c, REQUEUE_GIVEN_UP, Jdbc.uuidArray(c, ids(rows))),
        "no given-up recorder stop request" + (since == null ? "" : " given up since " + since));
  }

  /** The newest audit rows, newest first; {@code arguments} as a map. */
  public List<Map<String, Object>> recent(int limit) throws SQLException {
    return recent(new AuditFilter(null, null, null, limit));
  }

  /**
   * The newest audit rows matching {@code filter}, newest first: {@code arguments} as a map, and
   * {@code ids}, every id the action changed (a conference, an outbox row, a pause's scope, and for
   * {@code end} each row it wrote), in place of the full {@code changed} document.
   */
  public List<Map<String, Object>> recent(AuditFilter filter) throws SQLException {
    OperatorAction only = filter.action();
    @Nullable String action = only == null ? null : only.label();
    try (Connection c = dataSource.getConnection()) {
      List<Map<String, Object>> rows =
          Jdbc.rows(
              c,
              RECENT,
              action,
              action,
              filter.actor(),
              filter.actor(),
              Jdbc.ts(filter.since()),
              filter.limit());
      for (Map<String, Object> r : rows) {
        r.put("arguments", JSON.readValue((String) r.get("arguments"), Map.class));
        r.put("ids", changedIds(Jdbc.jsonList(r.remove("changed"))));
      }
      return rows;
    }
  }

  /** The ids in an audit row's {@code changed}: each row's id (or scope) and what it wrote. */
  static List<String> changedIds(List<Object> changed) {
    List<String> ids = new ArrayList<>();
    for (Object o : changed) {
      if (!(o instanceof Map<?, ?> row)) {
        continue;
      }
      Object id = row.get("id") != null ? row.get("id") : row.get("scope");
      if (id != null) {
        ids.add(String.valueOf(id));
      }
      if (row.get("written") instanceof Map<?, ?> written) {
        for (Object list : written.values()) {
          if (list instanceof List<?> l) {
            l.forEach(x -> ids.add(String.valueOf(x)));
          }
        }
      }
    }
    return ids;
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

  @FunctionalInterface
  private interface Select {
    List<Map<String, Object>> rows(Connection c) throws SQLException;
  }

  @FunctionalInterface
  private interface Change {
    int apply(Connection c, List<Map<String, Object>> rows) throws SQLException;
  }

  private Outcome act(Request request, Select select, Change change, @Nullable String nothing)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (Statement st = c.createStatement()) {
          st.executeQuery(LIMITS).close();
        }
        List<Map<String, Object>> rows = select.rows(c);
        if (rows.isEmpty()) {
          c.rollback();
          return new Outcome(Result.NOTHING, rows, null, nothing);
        }
        if (rows.size() > 1 && !request.confirmed()) {
          c.rollback();
          return new Outcome(Result.PLAN_ONLY, rows, null, null);
        }
        int changed = change.apply(c, rows);
        if (changed != rows.size()) {
          // The rows are locked since the select: a different count is a bug, never a race.
          throw new IllegalStateException(
              request.action() + " changed " + changed + " rows, expected " + rows.size());
        }
        long auditId = audit(c, request, rows);
        c.commit();
        return new Outcome(Result.APPLIED, rows, auditId, null);
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  static long audit(Connection c, Request request, List<Map<String, Object>> rows)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(AUDIT)) {
      ps.setObject(1, Jdbc.ts(request.at()));
      ps.setString(2, request.actor());
      ps.setString(3, request.action().label());
      ps.setString(4, JSON.writeValueAsString(request.arguments()));
      ps.setString(5, request.reason());
      ps.setInt(6, rows.size());
      ps.setString(7, JSON.writeValueAsString(rows));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static int update(Connection c, String sql, Object array) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, array);
      return count(ps);
    }
  }

  private static int count(PreparedStatement ps) throws SQLException {
    int n = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        n++;
      }
    }
    return n;
  }

  private static List<UUID> ids(List<Map<String, Object>> rows) {
    List<UUID> out = new ArrayList<>(rows.size());
    for (Map<String, Object> r : rows) {
      out.add((UUID) r.get("id"));
    }
    return out;
  }
}
