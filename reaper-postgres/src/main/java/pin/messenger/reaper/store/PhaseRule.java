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
 * literal, not a parameter, so that the planner can prove the partial index {@code ix_conf_active}
 * ({@code WHERE status IN ('Provisioning','Active')}) applies.
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

  private final Phase phase;
  private final String candidate;
  private final String due;

  private PhaseRule(Phase phase) {
    this.phase = phase;
    StringBuilder sql = new StringBuilder("s.status = '").append(phase.from().name()).append('\'');
    if (phase.requiresEmptyRoom()) {
      sql.append(" AND s.active_participant_count <= 0");
    }
    this.candidate = sql.toString();
    this.due = candidate + " AND " + column() + " <= ?";
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
