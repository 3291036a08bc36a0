package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.StoreException;

/**
 * The reaper's mark on a live room ({@code reaper_window_start}, V8): the instant the row's window
 * runs from, as the reaper last saw the row, i.e. its reference time then ({@code last_activity_at}
 * of an Active room, {@code created_at} of a Provisioning one). A cycle visits only the rows whose
 * window has passed since their mark ({@link PhaseRule#visited}: {@code reaper_window_start <= asOf
 * - window}, an index range of {@code ix_conf_due}; an unarmed row's mark is {@code -infinity});
 * the claim takes the due ones, and {@link #REARM} moves the others' mark up to their current
 * reference time. The messenger's heartbeat moves {@code last_activity_at} on and touches no
 * indexed column (a HOT update); a room it moved on is found at its old mark and re-armed: one
 * reaper write per room per window.
 *
 * <p>The invariant, for every live row: {@code reaper_window_start} is no later than the row's
 * reference time in its status's phase, so the row is visited no later than it becomes claimable,
 * whatever window the visiting worker is configured with (a shorter window after a change of
 * configuration included: the mark holds no window). It holds because only the reaper writes a
 * mark, always the reference time of the row's version under its lock; the reference time only
 * moves forward ({@code last_activity_at}, and an activated room's {@code last_activity_at} is not
 * before its {@code created_at}, the mark it carries from Provisioning); a recorded failure and an
 * operator's retry set it to {@code -infinity}. A row in poison backoff past its window stays
 * visited (not claimable until its backoff ends, and not rewritten: its reference time did not
 * move). docs/design.md, "Deadlines".
 */
final class Deadlines {

  /**
   * Rows one {@link #REARM} statement re-arms at most; the rest stay visited (and are re-armed by
   * the next cycles), so the statement stays short whatever the backlog of unarmed rows.
   */
  static final int REARM_LIMIT = 10_000;

  /**
   * Re-arms a phase's visited rows whose reference time moved on since their mark (or that were
   * never armed) and is not yet past the window: each, locked without waiting ({@code SKIP LOCKED}:
   * a row a heartbeat holds keeps its mark, still visited, until the next cycle), gets the
   * reference time of its locked version, which takes it out of the visited range. A due row is
   * left as it is: the claim takes it (now, or in a later batch), and a mark moved up to a
   * reference time past the window would leave it visited anyway. So is a row whose reference time
   * did not move (a row in poison backoff). The status guard is in the visit and again in the
   * update; the visit reads {@code ix_conf_due} in mark order, as {@link PhaseRule#visited} does.
   * The update finds the visited rows by primary key from an array, not by a join: planned for its
   * parameters, a join was hashed over every row of the status (the table's statistics, history
   * included, make the visit look large), reading every live room. Parameters: cutoff, cutoff,
   * limit.
   */
  static final String REARM =
      """
      WITH visit AS (
        SELECT s.id
          FROM messenger.conference_sessions s
         WHERE {status} AND s.reaper_window_start <= ?
           AND {reference} > s.reaper_window_start AND {reference} > ?
         ORDER BY s.reaper_window_start
         LIMIT ?
           FOR UPDATE SKIP LOCKED
      )
      UPDATE messenger.conference_sessions s
         SET reaper_window_start = {reference}
       WHERE s.id = ANY (ARRAY(SELECT v.id FROM visit v)) AND {status}
      """;

  private static final Map<Phase, String> REARM_SQL = new EnumMap<>(Phase.class);

  static {
    for (Phase phase : Phase.values()) {
      PhaseRule rule = PhaseRule.of(phase);
      if (rule.byDeadline()) {
        REARM_SQL.put(
            phase,
            REARM
                .replace("{reference}", rule.column())
                .replace("{status}", "s.status = '" + phase.from() + "'"));
      }
    }
  }

  private Deadlines() {}

  static String rearmSql(Phase phase) {
    return Objects.requireNonNull(REARM_SQL.get(phase), phase.label());
  }

  /**
   * Runs {@link #REARM} for {@code phase} in the batch's transaction; returns the rows re-armed.
   */
  static int rearm(
      Connection connection, Phase phase, Instant asOf, ConferenceRoomReaperOptions options) {
    try (PreparedStatement ps = connection.prepareStatement(rearmSql(phase))) {
      int i = 1;
      ps.setObject(i++, Jdbc.ts(phase.cutoff(asOf, options)));
      ps.setObject(i++, Jdbc.ts(phase.cutoff(asOf, options)));
      ps.setInt(i, REARM_LIMIT);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException(
          "re-arming the " + phase.label() + " deadlines failed: " + Jdbc.describe(e), e);
    }
  }
}
