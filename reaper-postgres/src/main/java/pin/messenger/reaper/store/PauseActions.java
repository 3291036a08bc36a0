package pin.messenger.reaper.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Request;
import pin.messenger.reaper.store.OperatorActions.Result;

/**
 * {@code bin/reaper pause} and {@code resume}: writing and lifting the operators' pauses ({@code
 * messenger.conference_reaper_pauses}, read by the cycles through {@link Pauses}), and what resume
 * tells the operator when a pause stays in force or ended by itself.
 */
final class PauseActions {
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

  private final DataSource dataSource;

  PauseActions(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Pauses {@code scope} ({@link PauseState#ALL} or a phase) until {@code until} (null: resume).
   */
  Outcome pause(Request request, String scope, @Nullable Instant until) throws SQLException {
    return ActionTransaction.run(
        dataSource,
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
            return ActionTransaction.count(ps);
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
  Outcome resume(Request request, @Nullable String scope) throws SQLException {
    List<PauseState.Pause> ended = new ArrayList<>();
    List<PauseState.Pause> whole = new ArrayList<>();
    Outcome outcome =
        ActionTransaction.run(
            dataSource,
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
                ActionTransaction.update(
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
}
