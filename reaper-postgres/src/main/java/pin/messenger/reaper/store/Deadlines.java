package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.StoreException;

/**
 * The reaper's deadline on a live room ({@code reaper_due_at}, V8): no earlier than it can the row
 * become claimable by a {@link PhaseRule#byDeadline} phase. A cycle visits only the rows whose
 * deadline has come ({@link PhaseRule#visited}, an index range of {@code ix_conf_due}; an unarmed
 * row's deadline is {@code -infinity}); the claim takes the due ones, and {@link #REARM} moves the
 * others' deadline to the instant they become due as they are now. The messenger's heartbeat moves
 * {@code last_activity_at} on and touches no indexed column (a HOT update); a room it moved on is
 * found at its old deadline and re-armed: one reaper write per room per window.
 *
 * <p>The invariant, for every live row: {@code reaper_due_at} is no later than the first instant
 * the row is claimable in its status's phase. It holds because only the reaper writes a deadline,
 * always from the row's version under its lock, and every change another writer makes only moves
 * that instant later ({@code last_activity_at} only moves forward) or clears the deadline (a
 * recorded failure and an operator's retry set it to {@code -infinity}); see {@link #armWindow} for
 * a Provisioning room the messenger activates. docs/design.md, "Deadlines".
 */
final class Deadlines {

  /**
   * Rows one {@link #REARM} statement re-arms at most; the rest stay visited (and are re-armed by
   * the next cycles), so the statement stays short whatever the backlog of unarmed rows.
   */
  static final int REARM_LIMIT = 10_000;

  /**
   * Re-arms a phase's visited rows that are not due now: each, locked without waiting ({@code SKIP
   * LOCKED}: a row a heartbeat holds keeps its deadline, still visited, until the next cycle), gets
   * the instant it becomes due as its locked version says ({@link PhaseRule#dueAt} over {@link
   * #armWindow}). A due row keeps its deadline (the claim takes it). The status guard is in the
   * visit and again in the update; the visit reads {@code ix_conf_due} in deadline order, as {@link
   * PhaseRule#visited} does. Parameters: asOf, window, asOf, limit, window.
   */
  static final String REARM =
      """
      WITH visit AS (
        SELECT s.id
          FROM messenger.conference_sessions s
         WHERE {status} AND s.reaper_due_at <= ?
           AND {due_at} > ?
         ORDER BY s.reaper_due_at
         LIMIT ?
           FOR UPDATE SKIP LOCKED
      )
      UPDATE messenger.conference_sessions s
         SET reaper_due_at = {due_at}
        FROM visit v
       WHERE s.id = v.id AND {status}
      """;

  private static final Map<Phase, String> REARM_SQL = new EnumMap<>(Phase.class);

  static {
    for (Phase phase : Phase.values()) {
      PhaseRule rule = PhaseRule.of(phase);
      if (rule.byDeadline()) {
        REARM_SQL.put(
            phase,
            REARM
                .replace("{due_at}", rule.dueAt())
                .replace("{status}", "s.status = '" + phase.from() + "'"));
      }
    }
  }

  private Deadlines() {}

  static String rearmSql(Phase phase) {
    return Objects.requireNonNull(REARM_SQL.get(phase), phase.label());
  }

  /**
   * The window a deadline is armed with: the phase's own, except that a Provisioning room is armed
   * no later than {@code created_at +} the stale-live timeout too. The messenger may activate it
   * without touching the deadline, and its stale-live window then runs from a {@code
   * last_activity_at} at or after {@code created_at}; with the shipped windows (2 min against 4 h)
   * this is the provision timeout itself.
   */
  static Duration armWindow(Phase phase, ConferenceRoomReaperOptions options) {
    Duration own = phase.window(options);
    if (phase == Phase.PROVISION_TIMEOUT) {
      Duration staleLive = Phase.STALE_LIVE.window(options);
      return own.compareTo(staleLive) <= 0 ? own : staleLive;
    }
    return own;
  }

  /**
   * Runs {@link #REARM} for {@code phase} in the batch's transaction; returns the rows re-armed.
   */
  static int rearm(
      Connection connection, Phase phase, Instant asOf, ConferenceRoomReaperOptions options) {
    long window = PostgresReaperStore.micros(armWindow(phase, options));
    try (PreparedStatement ps = connection.prepareStatement(rearmSql(phase))) {
      int i = 1;
      ps.setObject(i++, Jdbc.ts(asOf));
      ps.setLong(i++, window);
      ps.setObject(i++, Jdbc.ts(asOf));
      ps.setInt(i++, REARM_LIMIT);
      ps.setLong(i, window);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException(
          "re-arming the " + phase.label() + " deadlines failed: " + Jdbc.describe(e), e);
    }
  }
}
