package pin.messenger.reaper.store;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import pin.messenger.reaper.core.Phase;

/**
 * A phase's rule in SQL, rendered from {@link Phase} — the one definition of the phase's status,
 * empty-room condition, reference time and window, which {@code ReaperDecision} reads too. Every
 * SQL form of the rule (the claim, the skipped-locked count, the backlog gauges, {@code status} and
 * {@code explain}) is built from these fragments; {@code PhaseRulePropertyTest} checks on real
 * PostgreSQL that they select exactly the rows the decision would not skip.
 *
 * <p>Fragments use the alias {@code s} for {@code messenger.conference_sessions}. The status is a
 * literal, not a parameter, so that the planner can prove the partial indexes ({@code WHERE status
 * IN ('Provisioning','Active')}) apply.
 *
 * <p>Where a phase's rows are found ({@link #visited}): stale-live and provision-timeout by the
 * reaper's mark ({@code reaper_window_start}, index {@code ix_conf_due}: only rows whose window has
 * passed since their mark; an unarmed row's is {@code -infinity}), empty-room by the empty range of
 * {@code ix_conf_active}. The mark is never later than the row's reference time ({@link
 * Deadlines}), so the claimable rows among the visited ones are exactly the claimable rows.
 */
final class PhaseRule {

  private static final Map<Phase, PhaseRule> RULES = new EnumMap<>(Phase.class);

  static {
    for (Phase phase : Phase.values()) {
      RULES.put(phase, new PhaseRule(phase));
    }
  }

  /** When a poison row may be claimed again (null: not backing off). */
  static final String NEXT_ATTEMPT = "s.reaper_next_attempt_at";

  /** Poison rows wait out their backoff before they are claimed again. One parameter: asOf. */
  static final String NOT_BACKING_OFF =
      "(" + NEXT_ATTEMPT + " IS NULL OR " + NEXT_ATTEMPT + " <= ?)";

  /** The reaper's mark (V8): written by {@link Deadlines#REARM}; {@code -infinity}: unarmed. */
  static final String WINDOW_START = "s.reaper_window_start";

  /**
   * How many rows one {@link #visited} reads at most, in its index's order. The bound is what keeps
   * the planner on the phase's index (only it gives that order), whatever the statistics; a cycle
   * visits far fewer (what is due or re-armed, the empty rooms), and rows past it are visited by
   * the next cycles.
   */
  static final int VISIT_LIMIT = 50_000;

  private final Phase phase;
  private final String candidate;
  private final String due;
  private final String visited;

  private PhaseRule(Phase phase) {
    this.phase = phase;
    StringBuilder sql = new StringBuilder("s.status = '").append(phase.from().name()).append('\'');
    if (phase.requiresEmptyRoom()) {
      sql.append(" AND s.active_participant_count <= 0");
    }
    this.candidate = sql.toString();
    this.due = candidate + " AND " + column() + " <= ?";
    // Each visit reads its index range in the index's order, with a LIMIT: only that index gives
    // the order, so the planner keeps to it whatever the statistics say (a history of ended rooms,
    // empty and with old deadlines, makes every live-room predicate look unselective).
    this.visited =
        byDeadline()
            ? """
            (SELECT s.* FROM messenger.conference_sessions s
              WHERE s.status = '%s' AND %s <= ?
              ORDER BY %s
              LIMIT ?) s"""
                .formatted(phase.from(), WINDOW_START, WINDOW_START)
            : """
            (SELECT s.* FROM messenger.conference_sessions s
              WHERE %s
              ORDER BY s.active_participant_count
              LIMIT ?) s"""
                .formatted(candidate);
  }

  static PhaseRule of(Phase phase) {
    return Objects.requireNonNull(RULES.get(phase));
  }

  Phase phase() {
    return phase;
  }

  /** The reference-time column, qualified: {@code s.last_activity_at} or {@code s.created_at}. */
  String column() {
    return "s." + phase.referenceTime().column();
  }

  /**
   * The phase's rows whatever the time: its status and, for empty-room, nobody in the room. A row
   * here becomes due once its window passes; {@link #due} is this and the window.
   */
  String candidate() {
    return candidate;
  }

  /**
   * The instant a {@link #candidate} row becomes claimable: its window's end ({@code reference time
   * + window}) or its poison backoff's end, whichever is later ({@code greatest} ignores a null
   * backoff). The same comparison as {@link #claimable}, solved for asOf: {@code column <= asOf -
   * window AND (next IS NULL OR next <= asOf)} holds exactly when {@code asOf >= dueAt}. One
   * parameter: the window in microseconds.
   */
  String dueAt() {
    return "greatest(" + column() + " + ? * interval '1 microsecond', " + NEXT_ATTEMPT + ")";
  }

  /**
   * True when the phase's rows are found by their mark ({@code ix_conf_due}): every phase whose
   * rule does not depend on the participant count, which the messenger changes without touching the
   * mark. Empty-room's rows are the empty rooms themselves (a range of {@code ix_conf_active}):
   * rooms that close within the grace unless someone comes back.
   */
  boolean byDeadline() {
    return !phase.requiresEmptyRoom();
  }

  /**
   * The rows a cycle visits for this phase, as a {@code FROM} item aliased {@code s}, at most
   * {@link #VISIT_LIMIT} in the order of their index: for a {@link #byDeadline} phase the rows of
   * its status whose window has passed since their mark, earliest first ({@code ix_conf_due}; two
   * parameters: the phase's cutoff at asOf, the limit); for empty-room its {@link #candidate} rows,
   * the empty rooms ({@code ix_conf_active}; one parameter: the limit). Every claimable row is
   * among them (up to the limit).
   */
  String visited() {
    return visited;
  }

  /** Past the window (poison backoff aside). One parameter: the phase's cutoff at asOf. */
  String due() {
    return due;
  }

  /** What a claim may take: due and not backing off. Parameters: cutoff, asOf. */
  String claimable() {
    return due + " AND " + NOT_BACKING_OFF;
  }

  /** The claim order: oldest reference time first, the id breaking ties. */
  String order(String alias) {
    return alias + "." + phase.referenceTime().column() + ", " + alias + ".id";
  }
}
