package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ClaimPosition;
import pin.messenger.reaper.core.ConferenceSession;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.StoreException;

/**
 * A batch's claim and skipped-locked count over a phase's {@link PhaseRule}, in one statement: lock
 * at most N claimable rows in claim order, passing over (and counting) rows others hold, with the
 * run lock's and the pauses' check along. Drain mode's later batches: {@link DrainCursor}.
 */
final class Claims {

  /**
   * How far past the claim's limit the candidates reach: rows other transactions hold are passed
   * over within this window, so a claim stays full while fewer than {@code limit} rows of its
   * window are held, and the skipped-locked count is counted within it.
   */
  static final int WINDOW_FACTOR = 2;

  /**
   * Whether the run lock is still granted to its holder's backend ({@link AdvisoryRunLock#HELD_BY};
   * a null pid means no lock to check), and whether an operator's pause of the phase or of the
   * whole reaper is in force at the cycle's moment ({@link PauseState.Pause#activeAt}'s rule). The
   * cycle read the pauses at its start; this is the same read on every batch's own snapshot, so a
   * pause committed before a batch's claim holds for that batch. When either says no, the claim's
   * candidates are empty. Parameters: pid, pid, name, asOf.
   */
  static final String RUN_LOCK =
      """
      run_lock AS MATERIALIZED (
        SELECT ?::int IS NULL OR {held_by} AS held,
               EXISTS (SELECT 1 FROM messenger.conference_reaper_pauses p
                        WHERE p.scope IN ('{phase}', '{all}')
                          AND (p.until IS NULL OR p.until > ?::timestamptz)) AS paused
      )""";

  /**
   * The candidates ({@code k}: id and order key {@code ref}) in claim order, each locked by its
   * primary key {@code FOR UPDATE SKIP LOCKED} with the rule re-checked on the row's newest
   * version, until {@code limit} are locked: a nested loop under the {@code LIMIT}, so no candidate
   * past the limit-th locked one is locked. Parameters: cutoff, asOf, limit.
   */
  static final String LOCK_CANDIDATES =
      """
      claimed AS (
        SELECT l.*
          FROM (SELECT k.id, k.ref FROM candidates k ORDER BY k.ref, k.id) k
         CROSS JOIN LATERAL (
           SELECT s.id, s.chat_id, s.deal_id, s.tenant_id, s.media_type, s.status,
                  s.started_by_user_id, s.created_at, s.started_at, s.last_activity_at,
                  s.active_participant_count, s.peak_participant_count, s.reaper_next_attempt_at
             FROM messenger.conference_sessions s
            WHERE s.id = k.id AND {claimable}
              FOR UPDATE SKIP LOCKED
         ) l
         ORDER BY k.ref, k.id
         LIMIT ?
      )""";

  /**
   * Candidates not claimed and, when the claim was full, up to its last position: the rows other
   * transactions held (or changed after the statement's snapshot). Positions compare (order key,
   * id), so a row tied with the last claimed row's order key but after it in id order — cut by the
   * {@code LIMIT}, not held — is outside. {@code NOT IN}, not {@code NOT EXISTS}: the planner
   * hashes the claimed ids for it (a nested loop would be window × limit comparisons). Parameter:
   * limit.
   */
  static final String PASSED =
      """
      passed AS MATERIALIZED (
        SELECT k.id, k.ref FROM candidates k
         WHERE k.id NOT IN (SELECT c.id FROM claimed c)
           AND ((SELECT count(*) FROM claimed) < ?
                OR (k.ref, k.id) <= (SELECT c.{ref_column}, c.id FROM claimed c
                                      ORDER BY c.{ref_column} DESC, c.id DESC LIMIT 1))
      )""";

  /**
   * A batch's claim (a phase's first batch of a cycle, and every batch outside drain mode):
   *
   * <ol>
   *   <li>{@link #RUN_LOCK};
   *   <li>{@code candidates}: the first {@code window} claimable rows in claim order, read without
   *       locks among the rows the cycle visits ({@link PhaseRule#visited}: an index range). This
   *       is the only read of the table's range. Parameters: [asOf, for a deadline phase], visit
   *       limit, cutoff, asOf, window;
   *   <li>{@link #LOCK_CANDIDATES}, then {@link #PASSED}: what the skipped-locked count counts.
   * </ol>
   *
   * <p>One row per claimed row in claim order, with what the event needs ({@link
   * SessionRow#EVENT_COLUMNS}), or one row of nulls when nothing was claimed; {@code
   * run_lock_held}, {@code phase_paused} and {@code skipped_locked} are on every row.
   */
  static final String CLAIM =
      """
      WITH {run_lock},
      candidates AS MATERIALIZED (
        SELECT s.id, s.{ref_column} AS ref
          FROM {visited}
         WHERE {claimable} AND (SELECT held AND NOT paused FROM run_lock)
         ORDER BY s.{ref_column}, s.id
         LIMIT ?
      ),
      {claimed},
      {passed}
      SELECT (SELECT held FROM run_lock) AS run_lock_held,
             (SELECT paused FROM run_lock) AS phase_paused,
             (SELECT count(*) FROM passed) AS skipped_locked,
             c.*,
             {event_columns}
        FROM (SELECT 1) AS one
        LEFT JOIN claimed c ON true
       ORDER BY c.{ref_column}, c.id
      """;

  private static final Map<Phase, String> CLAIM_SQL = new EnumMap<>(Phase.class);

  static {
    for (Phase phase : Phase.values()) {
      CLAIM_SQL.put(phase, render(CLAIM, phase));
    }
  }

  /** {@code template} with {@link #RUN_LOCK}, the phase's rule and the other pieces filled in. */
  static String render(String template, Phase phase) {
    PhaseRule rule = PhaseRule.of(phase);
    return template
        .replace("{run_lock}", RUN_LOCK)
        .replace("{claimed}", LOCK_CANDIDATES)
        .replace("{passed}", PASSED)
        .replace("{held_by}", AdvisoryRunLock.HELD_BY)
        .replace("{phase}", phase.label())
        .replace("{all}", PauseState.ALL)
        .replace("{visited}", rule.visited())
        .replace("{claimable}", rule.claimable())
        .replace("{ref_column}", phase.referenceTime().column())
        .replace("{event_columns}", SessionRow.EVENT_COLUMNS);
  }

  /** What one claim returned; {@code passedOver}: a drain claim's held candidates. */
  record Result(
      List<ConferenceSession> rows,
      int skippedLocked,
      boolean runLockHeld,
      boolean phasePaused,
      List<UUID> passedOver) {}

  private final Connection connection;

  Claims(Connection connection) {
    this.connection = connection;
  }

  static String claimSql(Phase phase) {
    return Objects.requireNonNull(CLAIM_SQL.get(phase));
  }

  /** The candidate window of a claim of {@code limit} rows. */
  static int window(int limit) {
    return Math.multiplyExact(limit, WINDOW_FACTOR);
  }

  /** The claim alone: no run lock to check, no earlier batch (tests of the rule's SQL). */
  List<ConferenceSession> claim(Phase phase, Instant cutoff, Instant asOf, int limit) {
    return claim(phase, cutoff, asOf, limit, null, null, null, null).rows();
  }

  /**
   * Runs {@link #CLAIM} in one round trip, after {@code limits} when given (the batch's first
   * statement sets its limits in the same round trip: pgjdbc sends both before one Sync, and the
   * claim then runs under them). {@code lockPid} null: no run lock to check. {@code cursorIds}
   * non-null: a drain's later batch, whose candidates are those rows ({@link DrainCursor#CLAIM},
   * after {@code after}), not the index range.
   */
  Result claim(
      Phase phase,
      Instant cutoff,
      Instant asOf,
      int limit,
      @Nullable ClaimPosition after,
      @Nullable Integer lockPid,
      PostgresBatch.@Nullable Limits limits,
      @Nullable List<UUID> cursorIds) {
    boolean drain = cursorIds != null;
    String claim = drain ? DrainCursor.claimSql(phase) : claimSql(phase);
    String sql = limits == null ? claim : PostgresBatch.SET_LIMITS + ";\n" + claim;
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      int first = limits == null ? 1 : limits.bind(ps, 1);
      if (cursorIds != null) {
        DrainCursor.bind(
            ps,
            first,
            phase,
            cutoff,
            asOf,
            limit,
            Objects.requireNonNull(after, "a drain's later batch has a previous position"),
            lockPid,
            Jdbc.uuidArray(connection, cursorIds));
      } else {
        bind(ps, first, phase, cutoff, asOf, limit, lockPid);
      }
      boolean results = ps.execute();
      if (limits != null) {
        results = ps.getMoreResults();
      }
      if (!results) {
        throw new IllegalStateException("the claim returned no result set");
      }
      List<ConferenceSession> rows = new ArrayList<>(limit);
      int skipped = 0;
      boolean held = false;
      boolean paused = false;
      List<UUID> passedOver = List.of();
      try (ResultSet rs = ps.getResultSet()) {
        while (rs.next()) {
          held = rs.getBoolean("run_lock_held");
          paused = rs.getBoolean("phase_paused");
          skipped = rs.getInt("skipped_locked");
          if (drain && rs.getObject("passed_over") != null) {
            passedOver = Jdbc.uuids(rs, "passed_over");
          }
          if (rs.getObject("id") != null) {
            rows.add(SessionRow.read(rs));
          }
        }
      }
      return new Result(rows, skipped, held, paused, passedOver);
    } catch (SQLException e) {
      throw new StoreException("claim " + phase.label() + " failed: " + Jdbc.describe(e), e);
    }
  }

  /** Binds {@link #CLAIM}'s parameters from {@code first} on. */
  static void bind(
      PreparedStatement ps,
      int first,
      Phase phase,
      Instant cutoff,
      Instant asOf,
      int limit,
      @Nullable Integer lockPid)
      throws SQLException {
    int i = bindRunLock(ps, first, asOf, lockPid);
    i = bindRule(ps, i, phase, cutoff, asOf);
    ps.setInt(i++, window(limit));
    i = bindLockCandidates(ps, i, cutoff, asOf, limit);
    ps.setInt(i, limit);
  }

  /** {@link #RUN_LOCK}'s parameters from {@code i}; returns the next index. */
  static int bindRunLock(PreparedStatement ps, int i, Instant asOf, @Nullable Integer lockPid)
      throws SQLException {
    ps.setObject(i, lockPid, Types.INTEGER);
    ps.setObject(i + 1, lockPid, Types.INTEGER);
    ps.setString(i + 2, AdvisoryRunLock.NAME);
    ps.setObject(i + 3, Jdbc.ts(asOf));
    return i + 4;
  }

  /**
   * {@link PhaseRule#visited} and {@link PhaseRule#claimable}'s parameters from {@code i}; returns
   * the next index.
   */
  static int bindRule(PreparedStatement ps, int i, Phase phase, Instant cutoff, Instant asOf)
      throws SQLException {
    if (PhaseRule.of(phase).byDeadline()) {
      ps.setObject(i++, Jdbc.ts(cutoff));
    }
    ps.setInt(i++, PhaseRule.VISIT_LIMIT);
    ps.setObject(i++, Jdbc.ts(cutoff));
    ps.setObject(i++, Jdbc.ts(asOf));
    return i;
  }

  /** {@link #LOCK_CANDIDATES}' parameters from {@code i}; returns the next index. */
  static int bindLockCandidates(
      PreparedStatement ps, int i, Instant cutoff, Instant asOf, int limit) throws SQLException {
    ps.setObject(i, Jdbc.ts(cutoff));
    ps.setObject(i + 1, Jdbc.ts(asOf));
    ps.setInt(i + 2, limit);
    return i + 3;
  }
}
