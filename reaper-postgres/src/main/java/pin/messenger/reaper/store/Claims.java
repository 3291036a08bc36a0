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
 * The claim of one batch and its skipped-locked count, both over a phase's {@link PhaseRule}, in
 * one statement: lock at most N claimable rows in claim order, passing over rows other transactions
 * hold, and count the ones passed over — with the run lock's check riding along.
 */
final class Claims {

  /**
   * How far past the claim's limit the candidates reach: rows other transactions hold are passed
   * over within this window, so a claim stays full while fewer than {@code limit} rows of its
   * window are held, and the skipped-locked count is counted within it.
   */
  static final int WINDOW_FACTOR = 2;

  /**
   * One statement for a batch's claim (parameters in order):
   *
   * <ol>
   *   <li>{@code run_lock}: whether the run lock is still granted to its holder's backend ({@link
   *       AdvisoryRunLock#HELD_BY}; a null pid means no lock to check). When it is not, the
   *       candidates are empty: nothing is claimed. With it, {@code paused}: whether an operator's
   *       pause of the phase or of the whole reaper is in force at the cycle's moment ({@link
   *       PauseState.Pause#activeAt}'s rule; %9$s the phase's label, %10$s {@link PauseState#ALL});
   *       then the candidates are empty too. The cycle read the pauses at its start; this is the
   *       same read again on every batch's own snapshot, so a pause committed before a batch's
   *       claim holds for that batch, mid-cycle and mid-drain included. Parameters: pid, pid, name,
   *       asOf.
   *   <li>{@code candidates}: the first {@code window} claimable rows in claim order, read without
   *       locks. This is the only scan of the table: each live row the phase's index range covers
   *       is visited once. %1$s is the claimable predicate, %2$s the order over {@code s}, %4$s the
   *       reference-time column over {@code s}. Parameters: cutoff, asOf, window.
   *   <li>{@code claimed}: the candidates in claim order, each locked by its primary key {@code FOR
   *       UPDATE SKIP LOCKED} with the predicate re-checked on the row's newest version, until
   *       {@code limit} are locked (a nested loop under the {@code LIMIT}: no candidate past the
   *       limit-th locked one is locked). Parameters: cutoff, asOf, limit.
   *   <li>{@code passed}: candidates not claimed and, when the claim was full, up to its last
   *       position: the rows other transactions held (or changed after the statement's snapshot).
   *       Positions compare (reference time, id), so a row tied with the last claimed row's
   *       timestamp but after it in id order — cut by the LIMIT, not held — is outside. %5$s is the
   *       reference-time column over {@code c}. {@code NOT IN}, not {@code NOT EXISTS}: the planner
   *       hashes the claimed ids for it, where it ran {@code NOT EXISTS} as a nested loop over the
   *       CTE (up to window × limit comparisons a batch: two million at batch 1000). Parameter:
   *       limit. A drain offers them to its next batch again ({@link DrainCursor}), as a scan
   *       would.
   *   <li>{@code skipped}: those after the previous full batch's last position ({@code after}, null
   *       for the first batch), so a row held across batches counts once. Parameters: after key,
   *       after key, after id.
   * </ol>
   *
   * <p>The result has one row per claimed row in claim order (%3$s), each with what the event needs
   * ({@link SessionRow#EVENT_COLUMNS}, %8$s: distinct roster in join order, newest recording,
   * recordings still running), or one row of nulls when nothing was claimed; {@code run_lock_held},
   * {@code phase_paused} and {@code skipped_locked} are on every row, {@code passed_over} (the ids
   * of {@code passed}, null for none) on the first only.
   */
  static final String CLAIM =
      """
      WITH run_lock AS MATERIALIZED (
        SELECT ?::int IS NULL OR %6$s AS held,
               EXISTS (SELECT 1 FROM messenger.conference_reaper_pauses p
                        WHERE p.scope IN ('%9$s', '%10$s')
                          AND (p.until IS NULL OR p.until > ?::timestamptz)) AS paused
      ), candidates AS MATERIALIZED (
        SELECT s.id, %4$s AS ref
          FROM %7$s
         WHERE %1$s AND (SELECT held AND NOT paused FROM run_lock)
         ORDER BY %2$s
         LIMIT ?
      ), claimed AS (
        SELECT l.*
          FROM (SELECT k.id, k.ref FROM candidates k ORDER BY k.ref, k.id) k
         CROSS JOIN LATERAL (
           SELECT s.id, s.chat_id, s.deal_id, s.tenant_id, s.media_type, s.status,
                  s.started_by_user_id, s.created_at, s.started_at, s.last_activity_at,
                  s.active_participant_count, s.peak_participant_count, s.reaper_next_attempt_at
             FROM messenger.conference_sessions s
            WHERE s.id = k.id AND %1$s
              FOR UPDATE SKIP LOCKED
         ) l
         ORDER BY k.ref, k.id
         LIMIT ?
      ), passed AS MATERIALIZED (
        SELECT k.id, k.ref FROM candidates k
         WHERE k.id NOT IN (SELECT c.id FROM claimed c)
           AND ((SELECT count(*) FROM claimed) < ?
                OR (k.ref, k.id) <= (SELECT %5$s, c.id FROM claimed c
                                      ORDER BY %5$s DESC, c.id DESC LIMIT 1))
      ), skipped AS (
        SELECT count(*) AS n FROM passed k
         WHERE ?::timestamptz IS NULL OR (k.ref, k.id) > (?::timestamptz, ?::uuid)
      )
      SELECT (SELECT held FROM run_lock) AS run_lock_held,
             (SELECT paused FROM run_lock) AS phase_paused,
             (SELECT n FROM skipped) AS skipped_locked,
             CASE WHEN row_number() OVER (ORDER BY %3$s) = 1
                  THEN (SELECT array_agg(p.id) FROM passed p) END AS passed_over,
             c.*,
             %8$s
        FROM (SELECT 1) AS one
        LEFT JOIN claimed c ON true
       ORDER BY %3$s
      """;

  /**
   * A later batch of a drain: the candidates are the next rows of the phase's {@link DrainCursor},
   * looked up by primary key and re-checked, instead of a scan of every claimable row. Without an
   * index on the reference time (a heartbeat would then never be a HOT update, docs/design.md
   * "Index"), that scan reads the whole due backlog, so a drain of E rows in batches of N read
   * E²/2N rows; with the cursor it reads E once per {@link DrainCursor#PREFETCH_BATCHES} batches
   * and each batch looks up its window: a nested loop over the ids into the primary key (not {@code
   * id = ANY(…)}, which the planner may answer with a bitmap AND that reads every entry of the
   * phase's index range). One parameter before the claimable predicate's: the ids.
   */
  private static final String FROM_CURSOR =
      "unnest(?::uuid[]) AS w(id) JOIN messenger.conference_sessions s ON s.id = w.id";

  /** The first batch's candidates: a scan of the phase's range of ix_conf_active. */
  private static final String FROM_TABLE = "messenger.conference_sessions s";

  private static final Map<Phase, String> CLAIM_SQL = new EnumMap<>(Phase.class);
  private static final Map<Phase, String> CURSOR_CLAIM_SQL = new EnumMap<>(Phase.class);

  static {
    for (Phase phase : Phase.values()) {
      PhaseRule rule = PhaseRule.of(phase);
      for (boolean cursor : new boolean[] {false, true}) {
        (cursor ? CURSOR_CLAIM_SQL : CLAIM_SQL)
            .put(
                phase,
                CLAIM.formatted(
                    rule.claimable(),
                    rule.order("s"),
                    rule.order("c"),
                    rule.column(),
                    "c." + phase.referenceTime().column(),
                    AdvisoryRunLock.HELD_BY,
                    cursor ? FROM_CURSOR : FROM_TABLE,
                    SessionRow.EVENT_COLUMNS,
                    phase.label(),
                    PauseState.ALL));
      }
    }
  }

  /**
   * What one claim statement returned; {@code passedOver}: the candidates it passed over because
   * they were held, which a drain's next batch offers again.
   */
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

  /** {@link #CLAIM} over a drain cursor's ids ({@link #FROM_CURSOR}). */
  static String cursorClaimSql(Phase phase) {
    return Objects.requireNonNull(CURSOR_CLAIM_SQL.get(phase));
  }

  /** The candidate window of a claim of {@code limit} rows. */
  static int window(int limit) {
    return Math.multiplyExact(limit, WINDOW_FACTOR);
  }

  /**
   * Reads up to {@code n} claimable positions after {@code after} in claim order, without locks
   * ({@link DrainCursor#PREFETCH}).
   */
  List<ClaimPosition> prefetch(
      Phase phase, Instant cutoff, Instant asOf, @Nullable ClaimPosition after, int n) {
    try (PreparedStatement ps = connection.prepareStatement(DrainCursor.prefetchSql(phase))) {
      int i = 1;
      ps.setObject(i++, Jdbc.ts(cutoff));
      ps.setObject(i++, Jdbc.ts(asOf));
      ps.setObject(i++, after == null ? null : Jdbc.ts(after.orderKey()));
      ps.setObject(i++, after == null ? null : Jdbc.ts(after.orderKey()));
      ps.setObject(i++, after == null ? null : after.id());
      ps.setInt(i, n);
      List<ClaimPosition> positions = new ArrayList<>(Math.min(n, 1 << 16));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          positions.add(
              new ClaimPosition(
                  Objects.requireNonNull(Jdbc.instant(rs, "ref")), Jdbc.uuid(rs, "id")));
        }
      }
      return positions;
    } catch (SQLException e) {
      throw new StoreException(
          "reading the drain's next " + phase.label() + " rows failed: " + Jdbc.describe(e), e);
    }
  }

  /** The claim alone: no run lock to check, no earlier batch (tests of the rule's SQL). */
  List<ConferenceSession> claim(Phase phase, Instant cutoff, Instant asOf, int limit) {
    return claim(phase, cutoff, asOf, limit, null, null, null, null).rows();
  }

  /**
   * Runs {@link #CLAIM} in one round trip, after {@code limits} when given (the batch's first
   * statement sets its limits in the same round trip: pgjdbc sends both before one Sync, and the
   * claim then runs under them). {@code lockPid} null: no run lock to check. {@code cursorIds}
   * non-null: the candidates are those rows ({@link #cursorClaimSql}), not a scan.
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
    String claim = cursorIds == null ? claimSql(phase) : cursorClaimSql(phase);
    String sql = limits == null ? claim : PostgresBatch.SET_LIMITS + ";\n" + claim;
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      bind(
          ps,
          limits == null ? 1 : limits.bind(ps, 1),
          cutoff,
          asOf,
          limit,
          after,
          lockPid,
          cursorIds == null ? null : Jdbc.uuidArray(connection, cursorIds));
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
          if (rs.getObject("passed_over") != null) {
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

  /**
   * Binds {@link #CLAIM}'s parameters from {@code first} on ({@code cursorIds}: the drain cursor's
   * ids for {@link #cursorClaimSql}, null for {@link #claimSql}).
   */
  static void bind(
      PreparedStatement ps,
      int first,
      Instant cutoff,
      Instant asOf,
      int limit,
      @Nullable ClaimPosition after,
      @Nullable Integer lockPid,
      java.sql.@Nullable Array cursorIds)
      throws SQLException {
    int i = first;
    ps.setObject(i++, lockPid, Types.INTEGER);
    ps.setObject(i++, lockPid, Types.INTEGER);
    ps.setString(i++, AdvisoryRunLock.NAME);
    ps.setObject(i++, Jdbc.ts(asOf));
    if (cursorIds != null) {
      ps.setArray(i++, cursorIds);
    }
    ps.setObject(i++, Jdbc.ts(cutoff));
    ps.setObject(i++, Jdbc.ts(asOf));
    ps.setInt(i++, window(limit));
    ps.setObject(i++, Jdbc.ts(cutoff));
    ps.setObject(i++, Jdbc.ts(asOf));
    ps.setInt(i++, limit);
    ps.setInt(i++, limit);
    ps.setObject(i++, after == null ? null : Jdbc.ts(after.orderKey()));
    ps.setObject(i++, after == null ? null : Jdbc.ts(after.orderKey()));
    ps.setObject(i, after == null ? null : after.id());
  }
}
