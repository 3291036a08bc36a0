package pin.messenger.reaper.store;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ClaimPosition;
import pin.messenger.reaper.core.Phase;

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
   * locks: what a {@link DrainCursor} holds. %1$s is the claimable predicate, %2$s the order over
   * {@code s}, %3$s the reference-time column over {@code s}. Parameters: cutoff, asOf, after key,
   * after key, after id, limit.
   */
  static final String PREFETCH =
      """
      SELECT s.id, %3$s AS ref
        FROM messenger.conference_sessions s
       WHERE %1$s
         AND (?::timestamptz IS NULL OR (%3$s, s.id) > (?::timestamptz, ?::uuid))
       ORDER BY %2$s
       LIMIT ?
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

  static {
    for (Phase phase : Phase.values()) {
      PhaseRule rule = PhaseRule.of(phase);
      PREFETCH_SQL.put(phase, PREFETCH.formatted(rule.claimable(), rule.order("s"), rule.column()));
    }
  }

  static String prefetchSql(Phase phase) {
    return Objects.requireNonNull(PREFETCH_SQL.get(phase));
  }

  /** How many positions one prefetch reads for claims of {@code limit} rows. */
  static int prefetchSize(int limit) {
    return Math.max(MIN_PREFETCH, Math.multiplyExact(Claims.window(limit), PREFETCH_BATCHES));
  }

  private static final Comparator<ClaimPosition> ORDER =
      Comparator.comparing(ClaimPosition::orderKey).thenComparing(ClaimPosition::id);

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
    List<UUID> ids = new ArrayList<>(window);
    for (UUID id : passedOver) {
      if (ids.size() == window) {
        return ids;
      }
      ids.add(id);
    }
    for (ClaimPosition p : ahead) {
      if (ids.size() == window) {
        break;
      }
      ids.add(p.id());
    }
    return ids;
  }

  /** The read-ahead statement, as {@link Claims#prefetch} for this batch. */
  interface Prefetch {
    List<ClaimPosition> read(ClaimPosition after, int n);
  }
}
