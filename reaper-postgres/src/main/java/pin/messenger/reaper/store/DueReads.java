package pin.messenger.reaper.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import pin.messenger.reaper.core.Phase;

/**
 * The two read-only statements the worker sends besides its claims: the backlog gauges' counts and
 * the next-due read. Both read only what a cycle visits (index ranges: {@link PhaseRule#visited}),
 * never every live row, and each phase's part is its {@link PhaseRule} fragment.
 */
final class DueReads {

  /**
   * What the backlog reads: the rows every phase visits, which hold every row past a phase's window
   * ({@link Deadlines}' invariant), and, read by {@code ix_conf_backoff}, the live rows in poison
   * backoff, which the gauges count as due once their window passed; {@code UNION} counts a row
   * once.
   */
  static final String VISITED =
      """
      SELECT s.id, s.status, s.created_at, s.last_activity_at, s.active_participant_count
        FROM {visited}""";

  static final String POISON =
      """
      SELECT s.id, s.status, s.created_at, s.last_activity_at, s.active_participant_count
        FROM messenger.conference_sessions s
       WHERE s.status IN ('Provisioning', 'Active') AND s.reaper_next_attempt_at > ?""";

  /**
   * Due rows per phase ({@code <phase>_due}, each phase's filter its {@link PhaseRule#due}) and the
   * oldest reference time among them ({@code <phase>_oldest}); a row due in two phases counts once
   * in {@code total_due}. Parameters: the cutoff of each deadline phase's visit, in phase order,
   * and asOf for the backoff; then per phase its cutoff twice; then per phase its cutoff again.
   */
  static final String BACKLOG =
      """
      WITH visited AS (
      {visited}
      )
      SELECT {per_phase},
             count(*) FILTER (WHERE {any_due}) AS total_due
        FROM visited s
      """;

  static final String BACKLOG_SQL;

  /**
   * When each phase next needs a visit, per phase: for a deadline phase {@link #DEADLINE_NEXT_DUE};
   * for empty-room the earliest {@link PhaseRule#dueAt} of the empty rooms. A mark is never after
   * the row's reference time, so the schedule may wake early (the visit then re-arms), never late.
   * The operators' pauses ({@link Pauses#AS_JSON}) and the database's clock ride along; {@code
   * clock_timestamp()} is taken as the result row is formed, after the reads. Parameters: per phase
   * in order, a deadline phase its window twice, empty-room its window and the visit limit.
   */
  static final String DUE_TIMES =
      """
      SELECT {per_phase},
             {pauses} AS pauses,
             clock_timestamp() AS database_time
      """;

  /**
   * A deadline phase's next due instant: the head of {@code ix_conf_due} among the rows not in
   * poison backoff, plus the window (now, for a row never armed: the next cycle arms it), or, if
   * earlier, the due instant of a row in backoff ({@link PhaseRule#dueAt}, by {@code
   * ix_conf_backoff}). Parameters: the window, the window.
   */
  static final String DEADLINE_NEXT_DUE =
      """
      least(
        (SELECT CASE WHEN d.mark = '-infinity' THEN clock_timestamp()
                     ELSE d.mark + ? * interval '1 microsecond' END
           FROM (SELECT s.reaper_window_start AS mark FROM messenger.conference_sessions s
                  WHERE s.status = '{status}' AND s.reaper_window_start >= '-infinity'
                    AND s.reaper_next_attempt_at IS NULL
                  ORDER BY s.reaper_window_start
                  LIMIT 1) d),
        (SELECT min({due_at}) FROM messenger.conference_sessions s
          WHERE s.status = '{status}' AND s.reaper_next_attempt_at IS NOT NULL)) AS {alias}_next_due""";

  static final String EMPTY_RANGE_NEXT_DUE =
      """
      (SELECT min({due_at}) FROM {visited}) AS {alias}_next_due""";

  static final String DUE_TIMES_SQL;

  static {
    List<String> visited = new ArrayList<>();
    List<String> perPhase = new ArrayList<>();
    List<String> any = new ArrayList<>();
    List<String> nextDue = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      PhaseRule rule = PhaseRule.of(phase);
      String name = alias(phase);
      visited.add(VISITED.replace("{visited}", rule.visited()));
      perPhase.add(
          "count(*) FILTER (WHERE %s) AS %s_due, min(%s) FILTER (WHERE %s) AS %s_oldest"
              .formatted(rule.due(), name, rule.column(), rule.due(), name));
      any.add("(" + rule.due() + ")");
      nextDue.add(
          (rule.byDeadline() ? DEADLINE_NEXT_DUE : EMPTY_RANGE_NEXT_DUE)
              .replace("{status}", phase.from().name())
              .replace("{due_at}", rule.dueAt())
              .replace("{visited}", rule.visited())
              .replace("{alias}", name));
    }
    visited.add(POISON);
    BACKLOG_SQL =
        BACKLOG
            .replace("{visited}", String.join("\nUNION\n", visited))
            .replace("{per_phase}", String.join(",\n       ", perPhase))
            .replace("{any_due}", String.join(" OR ", any));
    DUE_TIMES_SQL =
        DUE_TIMES
            .replace("{per_phase}", String.join(",\n       ", nextDue))
            .replace("{pauses}", Pauses.AS_JSON);
  }

  private DueReads() {}

  static String alias(Phase phase) {
    return phase.name().toLowerCase(Locale.ROOT);
  }
}
