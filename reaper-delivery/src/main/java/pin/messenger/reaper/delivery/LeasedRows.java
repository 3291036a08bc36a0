package pin.messenger.reaper.delivery;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.delivery.LeaseOutcome.Delivered;
import pin.messenger.reaper.delivery.LeaseOutcome.Failure;
import pin.messenger.reaper.delivery.LeaseOutcome.Released;
import pin.messenger.reaper.delivery.LeaseOutcome.Settled;

/**
 * The leased rows of one delivery table, for one lease owner: the claim, and the three state
 * changes after the send (delivered, failure with backoff or give-up, release). Every state change
 * is guarded by {@code locked_by = owner} and its row count is read: a row it did not change was
 * taken over by another instance after this owner's lease ran out (reported as lost, never as
 * done); a row it changed that it was not asked to is a bug (an exception). Every statement runs
 * under the statement timeout.
 */
final class LeasedRows<R extends LeasedRow> {

  /**
   * Due rows (pending, as {@link pin.messenger.reaper.schema.DeliveryTables} defines it, and past
   * their backoff), oldest first, not leased to a live owner, passing over rows another claim
   * holds; each is stamped with this owner's lease in the same statement, which commits at once.
   * The rows come back in claim order (the order column must be among the returned ones), which is
   * the send order.
   *
   * <p>Leases are read and stamped on the database's clock ({@code clock_timestamp()}), whatever
   * the instances' own clocks say: two relays minutes apart would otherwise each take the other's
   * leases early, and a lease is only worth anything if every owner measures it by one clock.
   */
  static final String CLAIM =
      """
      WITH due AS (
        SELECT o.id FROM %1$s o
         WHERE %2$s
           AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
           AND (o.locked_until IS NULL OR o.locked_until < clock_timestamp())
           %3$s
         ORDER BY %4$s
         LIMIT ?
           FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE %1$s o
           SET locked_until = clock_timestamp() + make_interval(secs => ?), locked_by = ?
          FROM due
         WHERE o.id = due.id
        RETURNING %5$s
      )
      SELECT * FROM claimed o ORDER BY %4$s
      """;

  static final String MARK_DELIVERED =
      """
      UPDATE %1$s t
         SET %2$s = coalesce(u.at::timestamptz, ?), last_error = u.note,
             attempts = t.attempts + ?, locked_until = NULL, locked_by = NULL
        FROM unnest(?::uuid[], ?::text[], ?::text[]) AS u(id, note, at)
       WHERE t.id = u.id AND t.locked_by = ?
      RETURNING t.id
      """;

  /**
   * Counts an attempt and backs the row off; gives it up when the attempts reach the maximum, or at
   * once when the sender said no retry can help ({@code give_up}).
   */
  static final String RECORD_FAILURE =
      """
      UPDATE %1$s t
         SET attempts = t.attempts + 1, last_error = u.error,
             next_attempt_at = u.next_attempt_at::timestamptz,
             %2$s = CASE WHEN t.attempts + 1 >= ? OR u.give_up THEN ?::timestamptz END,
             locked_until = NULL, locked_by = NULL
        FROM unnest(?::uuid[], ?::text[], ?::text[], ?::boolean[])
             AS u(id, error, next_attempt_at, give_up)
       WHERE t.id = u.id AND t.locked_by = ?
      RETURNING t.id, t.%2$s IS NOT NULL AS gave_up
      """;

  /** The other side was unreachable: the rows go back untouched but for the error. */
  static final String RELEASE =
      """
      UPDATE %1$s t
         SET locked_until = NULL, locked_by = NULL, last_error = u.error
        FROM unnest(?::uuid[], ?::text[]) AS u(id, error)
       WHERE t.id = u.id AND t.locked_by = ?
      RETURNING t.id
      """;

  private final DataSource dataSource;
  private final LeasedTable<R> table;
  private final String owner;
  private final Duration statementTimeout;
  private final String claim;
  private final String markDelivered;
  private final String recordFailure;
  private final String release;

  LeasedRows(DataSource dataSource, LeasedTable<R> table, String owner, Duration statementTimeout) {
    this.dataSource = dataSource;
    this.table = table;
    this.owner = owner;
    this.statementTimeout = statementTimeout;
    this.claim =
        CLAIM.formatted(
            table.table().name(),
            table.table().pending("o"),
            table.claim().condition(),
            table.claim().order(),
            table.claim().columns());
    this.markDelivered = MARK_DELIVERED.formatted(table.table().name(), table.table().doneColumn());
    this.recordFailure =
        RECORD_FAILURE.formatted(table.table().name(), table.table().gaveUpColumn());
    this.release = RELEASE.formatted(table.table().name());
  }

  /** The table these rows are of. */
  LeasedTable<R> table() {
    return table;
  }

  /** The lease owner written into {@code locked_by}. */
  String owner() {
    return owner;
  }

  /**
   * Leases up to {@code limit} rows due at {@code now} to this owner for {@code lease}, counted on
   * the database's clock.
   */
  List<R> claim(Instant now, int limit, Duration lease) throws SQLException {
    return BoundedTransaction.run(
        dataSource,
        statementTimeout,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(claim)) {
            ps.setObject(1, ts(now));
            ps.setInt(2, limit);
            ps.setDouble(3, lease.toNanos() / 1e9);
            ps.setString(4, owner);
            List<R> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                rows.add(table.claim().reader().read(rs));
              }
            }
            return rows;
          }
        });
  }

  /** Writes the outcomes of one step in one transaction; see {@link LeaseOutcome.Settled}. */
  Settled settle(
      Instant now,
      List<Delivered> delivered,
      List<Failure> failures,
      List<Released> released,
      int maxAttempts)
      throws SQLException {
    return BoundedTransaction.run(
        dataSource,
        statementTimeout,
        c -> {
          Map<UUID, SendOutcome.Kind> lost = new HashMap<>();
          Set<UUID> done = markDelivered(c, now, delivered, lost);
          Set<UUID> gaveUp = new HashSet<>();
          Set<UUID> failed = recordFailures(c, now, failures, maxAttempts, gaveUp, lost);
          Set<UUID> back = release(c, released, lost);
          return new Settled(done, failed, gaveUp, back, lost);
        });
  }

  private Set<UUID> markDelivered(
      Connection c, Instant now, List<Delivered> rows, Map<UUID, SendOutcome.Kind> lost)
      throws SQLException {
    if (rows.isEmpty()) {
      return Set.of();
    }
    List<UUID> ids = rows.stream().map(Delivered::id).toList();
    try (PreparedStatement ps = c.prepareStatement(markDelivered)) {
      ps.setObject(1, ts(now));
      ps.setInt(2, table.attempts().onDelivery());
      ps.setArray(3, c.createArrayOf("uuid", ids.toArray()));
      ps.setArray(4, c.createArrayOf("text", rows.stream().map(Delivered::note).toArray()));
      ps.setArray(
          5,
          c.createArrayOf(
              "text", rows.stream().map(d -> d.at() == null ? null : d.at().toString()).toArray()));
      ps.setString(6, owner);
      try (ResultSet rs = ps.executeQuery()) {
        return changed(rs, ids, SendOutcome.Kind.DELIVERED, lost, null);
      }
    }
  }

  private Set<UUID> recordFailures(
      Connection c,
      Instant now,
      List<Failure> rows,
      int maxAttempts,
      Set<UUID> gaveUp,
      Map<UUID, SendOutcome.Kind> lost)
      throws SQLException {
    if (rows.isEmpty()) {
      return Set.of();
    }
    List<UUID> ids = rows.stream().map(Failure::id).toList();
    try (PreparedStatement ps = c.prepareStatement(recordFailure)) {
      ps.setInt(1, maxAttempts);
      ps.setObject(2, ts(now));
      ps.setArray(3, c.createArrayOf("uuid", ids.toArray()));
      ps.setArray(4, c.createArrayOf("text", rows.stream().map(Failure::error).toArray()));
      ps.setArray(
          5,
          c.createArrayOf("text", rows.stream().map(f -> f.nextAttemptAt().toString()).toArray()));
      ps.setArray(6, c.createArrayOf("boolean", rows.stream().map(Failure::giveUpNow).toArray()));
      ps.setString(7, owner);
      try (ResultSet rs = ps.executeQuery()) {
        return changed(rs, ids, SendOutcome.Kind.FAILED, lost, gaveUp);
      }
    }
  }

  private Set<UUID> release(Connection c, List<Released> rows, Map<UUID, SendOutcome.Kind> lost)
      throws SQLException {
    if (rows.isEmpty()) {
      return Set.of();
    }
    List<UUID> ids = rows.stream().map(Released::id).toList();
    try (PreparedStatement ps = c.prepareStatement(release)) {
      ps.setArray(1, c.createArrayOf("uuid", ids.toArray()));
      ps.setArray(2, c.createArrayOf("text", rows.stream().map(Released::error).toArray()));
      ps.setString(3, owner);
      try (ResultSet rs = ps.executeQuery()) {
        return changed(rs, ids, SendOutcome.Kind.UNAVAILABLE, lost, null);
      }
    }
  }

  /**
   * The row count, read row by row: the ids a guarded update changed. An asked-for id it did not
   * change lost its lease; an id it changed twice or was not asked to change is a bug.
   */
  private Set<UUID> changed(
      ResultSet rs,
      List<UUID> asked,
      SendOutcome.Kind attempted,
      Map<UUID, SendOutcome.Kind> lost,
      @Nullable Set<UUID> gaveUp)
      throws SQLException {
    Set<UUID> expected = new HashSet<>(asked);
    Set<UUID> changed = new LinkedHashSet<>();
    while (rs.next()) {
      UUID id = rs.getObject(1, UUID.class);
      if (!expected.contains(id) || !changed.add(id)) {
        throw new IllegalStateException(
            table.table().name()
                + ": a lease-guarded update ("
                + attempted
                + ") changed row "
                + id
                + " more than once or without being asked to; "
                + asked.size()
                + " rows asked");
      }
      if (gaveUp != null && rs.getBoolean(2)) {
        gaveUp.add(id);
      }
    }
    for (UUID id : asked) {
      if (!changed.contains(id)) {
        lost.put(id, attempted);
      }
    }
    return changed;
  }

  static OffsetDateTime ts(Instant i) {
    return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }
}
