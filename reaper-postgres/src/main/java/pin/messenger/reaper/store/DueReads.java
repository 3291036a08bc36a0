package pin.messenger.reaper.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;

/**
 * The worker's reads of what is due, besides its claims: the backlog gauges' counts, the next-due
 * read, and which phases have work at a cycle's moment (read with the run lock, {@link
 * AdvisoryRunLock#TRY_LOCK}, so a phase with nothing due sends no statement). All read only what a
 * cycle visits (index ranges: {@link PhaseRule#visited}), never every live row, and each phase's
 * part is its {@link PhaseRule} fragment.
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
   * A deadline phase's head: the earliest mark ({@code ix_conf_due}) among its rows not in poison
   * backoff; null when it has none. Read in index order with {@code LIMIT 1}, so the plan is the
   * index's first entry whatever the statistics.
   */
  static final String HEAD_MARK =
      """
      (SELECT s.reaper_window_start FROM messenger.conference_sessions s
        WHERE s.status = '{status}' AND s.reaper_window_start >= '-infinity'
          AND s.reaper_next_attempt_at IS NULL
        ORDER BY s.reaper_window_start
        LIMIT 1)""";

  /**
   * The earliest {@link PhaseRule#dueAt} of a deadline phase's rows in poison backoff ({@code
   * ix_conf_backoff}); null when none. Parameter: the window.
   */
  static final String BACKOFF_DUE =
      """
      (SELECT min({due_at}) FROM messenger.conference_sessions s
        WHERE s.status = '{status}' AND s.reaper_next_attempt_at IS NOT NULL)""";

  /** The earliest {@link PhaseRule#dueAt} of the empty rooms. Parameters: window, visit limit. */
  static final String EMPTY_DUE =
      """
      (SELECT min({due_at}) FROM {visited})""";

  /**
   * A deadline phase's next due instant: the {@link #HEAD_MARK} plus the window (now, for a row
   * never armed: the next cycle arms it), or, if earlier, the {@link #BACKOFF_DUE}. Parameters: the
   * window, the window.
   */
  static final String DEADLINE_NEXT_DUE =
      """
      least(
        (SELECT CASE WHEN d.mark = '-infinity' THEN clock_timestamp()
                     ELSE d.mark + ? * interval '1 microsecond' END
           FROM (SELECT {head_mark} AS mark) d),
        {backoff_due}) AS {alias}_next_due""";

  static final String EMPTY_RANGE_NEXT_DUE = "{empty_due} AS {alias}_next_due";

  /**
   * Whether a phase has work at the cycle's moment: a row to claim or to re-arm. For a deadline
   * phase, its {@link #HEAD_MARK} is at or before the cutoff (every row to claim or re-arm outside
   * backoff has its mark there: {@link Deadlines}' invariant), or a row in backoff is claimable
   * ({@link #BACKOFF_DUE} reached); for empty-room, an empty room is claimable. False exactly when
   * the phase's claim would find nothing and its re-arm nothing to move. Parameters: a deadline
   * phase its cutoff, its window and asOf; empty-room its window, the visit limit and asOf.
   */
  static final String DEADLINE_HAS_WORK = "coalesce({head_mark} <= ? OR {backoff_due} <= ?, false)";

  static final String EMPTY_HAS_WORK = "coalesce({empty_due} <= ?, false)";

  private static final List<String> HAS_WORK = new ArrayList<>();

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
      nextDue.add(fill(rule.byDeadline() ? DEADLINE_NEXT_DUE : EMPTY_RANGE_NEXT_DUE, rule));
      HAS_WORK.add(fill(rule.byDeadline() ? DEADLINE_HAS_WORK : EMPTY_HAS_WORK, rule));
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

  /**
   * Every phase's {@code <phase>_has_work} as select-list items, in phase order, each read only
   * when {@code guard} (a boolean SQL expression) holds and null otherwise: {@code CASE} evaluates
   * its subqueries only when reached. Parameters: {@link #bindHasWork}'s.
   */
  static String hasWork(String guard) {
    List<String> items = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      items.add(
          "CASE WHEN %s THEN %s END AS %s_has_work"
              .formatted(guard, HAS_WORK.get(phase.ordinal()), alias(phase)));
    }
    return String.join(",\n       ", items);
  }

  /** {@code template} with the phase's fragments filled in. */
  private static String fill(String template, PhaseRule rule) {
    Phase phase = rule.phase();
    return template
        .replace("{head_mark}", HEAD_MARK)
        .replace("{backoff_due}", BACKOFF_DUE)
        .replace("{empty_due}", EMPTY_DUE)
        .replace("{status}", phase.from().name())
        .replace("{due_at}", rule.dueAt())
        .replace("{visited}", rule.visited())
        .replace("{alias}", alias(phase));
  }

  /** {@link #BACKLOG_SQL}'s parameters for a reading at {@code asOf} ({@link #BACKLOG}). */
  static void bindBacklog(PreparedStatement ps, Instant asOf, ConferenceRoomReaperOptions options)
      throws SQLException {
    int i = 1;
    for (Phase phase : Phase.values()) {
      if (PhaseRule.of(phase).byDeadline()) {
        ps.setObject(i++, Jdbc.ts(phase.cutoff(asOf, options)));
      }
      ps.setInt(i++, PhaseRule.VISIT_LIMIT);
    }
    ps.setObject(i++, Jdbc.ts(asOf));
    for (Phase phase : Phase.values()) {
      ps.setObject(i++, Jdbc.ts(phase.cutoff(asOf, options)));
      ps.setObject(i++, Jdbc.ts(phase.cutoff(asOf, options)));
    }
    for (Phase phase : Phase.values()) {
      ps.setObject(i++, Jdbc.ts(phase.cutoff(asOf, options)));
    }
  }

  /** {@link #DUE_TIMES_SQL}'s parameters ({@link #DUE_TIMES}). */
  static void bindDueTimes(PreparedStatement ps, ConferenceRoomReaperOptions options)
      throws SQLException {
    int i = 1;
    for (Phase phase : Phase.values()) {
      long window = PostgresReaperStore.micros(phase.window(options));
      ps.setLong(i++, window);
      if (PhaseRule.of(phase).byDeadline()) {
        ps.setLong(i++, window);
      } else {
        ps.setInt(i++, PhaseRule.VISIT_LIMIT);
      }
    }
  }

  /**
   * {@link #hasWork}'s parameters from {@code i} for a cycle at {@code asOf}; returns the next
   * index.
   */
  static int bindHasWork(
      PreparedStatement ps, int i, Instant asOf, ConferenceRoomReaperOptions options)
      throws SQLException {
    for (Phase phase : Phase.values()) {
      long window = PostgresReaperStore.micros(phase.window(options));
      if (PhaseRule.of(phase).byDeadline()) {
        ps.setObject(i++, Jdbc.ts(phase.cutoff(asOf, options)));
        ps.setLong(i++, window);
      } else {
        ps.setLong(i++, window);
        ps.setInt(i++, PhaseRule.VISIT_LIMIT);
      }
      ps.setObject(i++, Jdbc.ts(asOf));
    }
    return i;
  }

  private DueReads() {}

  static String alias(Phase phase) {
    return phase.name().toLowerCase(Locale.ROOT);
  }
}
