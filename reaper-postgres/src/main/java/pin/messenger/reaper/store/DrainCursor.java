package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ClaimPosition;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.StoreException;

/**
 * One phase's drain in one cycle: the claimable rows' positions in claim order, read ahead once
 * ({@link #PREFETCH}) for many batches, so that a later batch claims its window by primary key
 * instead of scanning (and sorting) the whole due backlog again. Every claim still re-checks each
 * row under its lock, so the cursor only chooses candidates, never decides.
 *
 * <p>A row a batch passed over because another transaction held it is offered to the next batch
 * again (first, as it sorts first), as a fresh scan would offer it. What the cursor gives up,
 * within one cycle's drain: a row that becomes claimable after the read-ahead and sorts before its
 * end waits for the next cycle — as every row that becomes due during a cycle does. The cycle's
 * {@code asOf} is fixed, so no row becomes due by the clock meanwhile.
 */
final class DrainCursor {
  /**
   * A drain's next positions in claim order after a position (null: from the start), read without
   * locks among the rows the cycle visits: what a {@link DrainCursor} holds. Parameters: cutoff,
   * asOf, [asOf, for a deadline phase], after key, after key, after id, limit.
   */
  static final String PREFETCH =
      """
      SELECT s.id, s.{ref_column} AS ref
        FROM {visited}
       WHERE {claimable}
         AND (?::timestamptz IS NULL OR (s.{ref_column}, s.id) > (?::timestamptz, ?::uuid))
       ORDER BY s.{ref_column}, s.id
       LIMIT ?
      """;

  /**
   * A drain's later batch: {@link Claims#CLAIM} with the candidates taken from the cursor's ids,
   * each looked up by primary key and re-checked, instead of the index range: a nested loop over
   * the ids into the primary key (not {@code id = ANY(…)}, which the planner may answer with a
   * bitmap AND over the whole range). The skipped-locked count counts only rows after the previous
   * full batch's last position ({@code after}), so a row held across batches counts once; {@code
   * passed_over} (on the first row) names the rows passed over, which the next batch offers again.
   * Parameters: {@link Claims#RUN_LOCK}'s, ids, cutoff, asOf, window, {@link
   * Claims#LOCK_CANDIDATES}', limit, after key, after id.
   */
  static final String CLAIM =
      """
      WITH {run_lock},
      candidates AS MATERIALIZED (
        SELECT s.id, s.{ref_column} AS ref
          FROM unnest(?::uuid[]) AS w(id)
          JOIN messenger.conference_sessions s ON s.id = w.id
         WHERE {claimable} AND (SELECT held AND NOT paused FROM run_lock)
         ORDER BY s.{ref_column}, s.id
         LIMIT ?
      ),
      {claimed},
      {passed}
      SELECT (SELECT held FROM run_lock) AS run_lock_held,
             (SELECT paused FROM run_lock) AS phase_paused,
             (SELECT count(*) FROM passed k
               WHERE (k.ref, k.id) > (?::timestamptz, ?::uuid)) AS skipped_locked,
             CASE WHEN row_number() OVER (ORDER BY c.{ref_column}, c.id) = 1
                  THEN (SELECT array_agg(p.id) FROM passed p) END AS passed_over,
             c.*,
             {event_columns}
        FROM (SELECT 1) AS one
        LEFT JOIN claimed c ON true
       ORDER BY c.{ref_column}, c.id
      """;

  /**
   * How many batches' windows one {@link #PREFETCH} reads ahead (at least {@link #MIN_PREFETCH}).
   */
  static final int PREFETCH_BATCHES = 32;

  /**
   * The least a {@link #PREFETCH} reads ahead, so small batches do not re-read the backlog often.
   */
  static final int MIN_PREFETCH = 20_000;

  private static final Map<Phase, String> PREFETCH_SQL = new EnumMap<>(Phase.class);
  private static final Map<Phase, String> CLAIM_SQL = new EnumMap<>(Phase.class);

  static {
    for (Phase phase : Phase.values()) {
      PREFETCH_SQL.put(phase, Claims.render(PREFETCH, phase));
      CLAIM_SQL.put(phase, Claims.render(CLAIM, phase));
    }
  }

  static String prefetchSql(Phase phase) {
    return Objects.requireNonNull(PREFETCH_SQL.get(phase));
  }

  static String claimSql(Phase phase) {
    return Objects.requireNonNull(CLAIM_SQL.get(phase));
  }

  /** Binds {@link #CLAIM}'s parameters from {@code first} on. */
  static void bind(
      PreparedStatement ps,
      int first,
      Phase phase,
      Instant cutoff,
      Instant asOf,
      int limit,
      ClaimPosition after,
      @Nullable Integer lockPid,
      java.sql.Array ids)
      throws SQLException {
    int i = Claims.bindRunLock(ps, first, asOf, lockPid);
    ps.setArray(i++, ids);
    ps.setObject(i++, Jdbc.ts(cutoff));
    ps.setObject(i++, Jdbc.ts(asOf));
    ps.setInt(i++, Claims.window(limit));
    i = Claims.bindLockCandidates(ps, i, cutoff, asOf, limit);
    ps.setInt(i++, limit);
    ps.setObject(i++, Jdbc.ts(after.orderKey()));
    ps.setObject(i, after.id());
  }

  /**
   * Reads up to {@code n} claimable positions after {@code after} (null: from the start) in claim
   * order, without locks ({@link #PREFETCH}).
   */
  static List<ClaimPosition> prefetch(
      Connection connection,
      Phase phase,
      Instant cutoff,
      Instant asOf,
      @Nullable ClaimPosition after,
      int n) {
    try (PreparedStatement ps = connection.prepareStatement(prefetchSql(phase))) {
      int i = Claims.bindRule(ps, 1, phase, cutoff, asOf);
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

  /**
   * True once {@link #next} was called: a new cursor does not yet know what the phase's first batch
   * (the default claim, which names no passed-over rows) passed over.
   */
  boolean started() {
    return readUpTo != null || complete;
  }

  /** How many positions one prefetch reads for claims of {@code limit} rows. */
  static int prefetchSize(int limit) {
    return Math.max(MIN_PREFETCH, Math.multiplyExact(Claims.window(limit), PREFETCH_BATCHES));
  }

  /**
   * Claim order as PostgreSQL sorts it: the order key, then the id as PostgreSQL compares uuids (16
   * bytes, unsigned), not as {@link UUID#compareTo} does (two signed longs): rows tied on the order
   * key must fall on the same side of a position here as in the statements.
   */
  static final Comparator<ClaimPosition> ORDER =
      Comparator.comparing(ClaimPosition::orderKey)
          .thenComparingLong(p -> p.id().getMostSignificantBits() ^ Long.MIN_VALUE)
          .thenComparingLong(p -> p.id().getLeastSignificantBits() ^ Long.MIN_VALUE);

  private final Phase phase;
  private final Instant asOf;
  private final ArrayDeque<ClaimPosition> ahead = new ArrayDeque<>();

  /** The last batch's passed-over rows (held by others), offered to the next batch first. */
  private List<UUID> passedOver = List.of();

  /** Where the last read-ahead ended; null before the first. */
  private @Nullable ClaimPosition readUpTo;

  /** True once a read-ahead came back short: there is nothing claimable past {@link #readUpTo}. */
  private boolean complete;

  DrainCursor(Phase phase, Instant asOf) {
    this.phase = phase;
    this.asOf = asOf;
  }

  /** True when this cursor belongs to {@code phase}'s drain in the cycle at {@code asOf}. */
  boolean belongsTo(Phase phase, Instant asOf) {
    return this.phase == phase && this.asOf.equals(asOf);
  }

  /** What the last batch passed over because other transactions held it. */
  void passedOver(List<UUID> ids) {
    passedOver = List.copyOf(ids);
  }

  /**
   * The ids of the next window: the last batch's passed-over rows, then the positions after {@code
   * after}, {@code window} in all, reading ahead through {@code prefetch} (positions after a
   * position, at most n) when fewer than that are left.
   */
  List<UUID> next(ClaimPosition after, int window, int prefetchSize, Prefetch prefetch) {
    while (!ahead.isEmpty() && ORDER.compare(ahead.peekFirst(), after) <= 0) {
      ahead.pollFirst();
    }
    if (ahead.size() < window && !complete) {
      ClaimPosition from = readUpTo;
      if (from == null || ORDER.compare(from, after) < 0) {
        from = after;
      }
      List<ClaimPosition> read = prefetch.read(from, prefetchSize);
      ahead.addAll(read);
      if (!read.isEmpty()) {
        readUpTo = read.get(read.size() - 1);
      }
      complete = read.size() < prefetchSize;
    }
    // A set: a row is offered once, or the claim would lock and close it twice in one batch.
    Set<UUID> ids = new LinkedHashSet<>();
    for (UUID id : passedOver) {
      if (ids.size() == window) {
        return List.copyOf(ids);
      }
      ids.add(id);
    }
    for (ClaimPosition p : ahead) {
      if (ids.size() == window) {
        break;
      }
      ids.add(p.id());
    }
    return List.copyOf(ids);
  }

  /** The read-ahead statement, as {@link Claims#prefetch} for this batch. */
  interface Prefetch {
    List<ClaimPosition> read(ClaimPosition after, int n);
  }
}
