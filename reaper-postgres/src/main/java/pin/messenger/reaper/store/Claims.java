package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.StoreException;

/**
 * The claim of one batch and its skipped-locked count, both over a phase's {@link PhaseRule}: lock
 * at most N claimable rows in claim order, passing over rows other transactions hold, and count the
 * ones passed over.
 */
final class Claims {

  /**
   * Claim: lock at most N claimable rows in claim order ({@link PhaseRule#order}, id as
   * tiebreaker), passing over rows other transactions hold; then read what the event needs
   * (distinct roster in join order, newest recording, recordings still running) for just those
   * rows. %1$s is the claimable predicate, %2$s the order over {@code s}, %3$s the order over
   * {@code c}. Parameters: cutoff, asOf, limit.
   */
  static final String CLAIM =
      """
      WITH claimed AS (
        SELECT s.id, s.chat_id, s.deal_id, s.tenant_id, s.media_type, s.status, s.started_by_user_id,
               s.created_at, s.started_at, s.last_activity_at, s.active_participant_count,
               s.peak_participant_count, s.reaper_next_attempt_at
          FROM messenger.conference_sessions s
         WHERE %1$s
         ORDER BY %2$s
         LIMIT ?
           FOR UPDATE SKIP LOCKED
      )
      SELECT c.*,
             ARRAY(SELECT p.user_id FROM messenger.conference_participants p
                    WHERE p.conference_id = c.id
                    GROUP BY p.user_id ORDER BY min(p.joined_at), p.user_id) AS participants,
             (SELECT r.id FROM messenger.call_recordings r
               WHERE r.conference_id = c.id
               ORDER BY r.created_at DESC, r.id DESC LIMIT 1) AS latest_recording_id,
             ARRAY(SELECT r.id FROM messenger.call_recordings r
                    WHERE r.conference_id = c.id AND r.status IN ('Pending', 'Recording', 'Uploading')
                    ORDER BY r.created_at, r.id) AS active_recording_ids
        FROM claimed c
       ORDER BY %3$s
      """;

  /**
   * Claimable rows between two claim positions that this claim did not take: the rows other
   * transactions hold. Positions compare (reference time, id), so a row tied with the last claimed
   * row's timestamp but after it in id order — cut by the claim's LIMIT, not locked — is outside.
   * The first term of each bound is a range on the index key; a null bound is open. %1$s is the
   * claimable predicate, %2$s the reference-time column. Parameters: cutoff, asOf, after key
   * (twice), after id, up-to key (twice), up-to id, the claimed ids.
   */
  static final String COUNT_SKIPPED_LOCKED =
      """
      SELECT count(*) FROM messenger.conference_sessions s
       WHERE %1$s
         AND %2$s >= coalesce(?::timestamptz, '-infinity')
         AND (%2$s > coalesce(?::timestamptz, '-infinity') OR s.id > ?::uuid)
         AND %2$s <= coalesce(?::timestamptz, 'infinity')
         AND (%2$s < coalesce(?::timestamptz, 'infinity') OR s.id <= ?::uuid)
         AND s.id <> ALL (?::uuid[])
      """;

  private static final Map<Phase, String> CLAIM_SQL = new EnumMap<>(Phase.class);
  private static final Map<Phase, String> COUNT_SQL = new EnumMap<>(Phase.class);

  static {
    for (Phase phase : Phase.values()) {
      PhaseRule rule = PhaseRule.of(phase);
      CLAIM_SQL.put(phase, CLAIM.formatted(rule.claimable(), rule.order("s"), rule.order("c")));
      COUNT_SQL.put(phase, COUNT_SKIPPED_LOCKED.formatted(rule.claimable(), rule.column()));
    }
  }

  private final Connection connection;

  Claims(Connection connection) {
    this.connection = connection;
  }

  static String claimSql(Phase phase) {
    return Objects.requireNonNull(CLAIM_SQL.get(phase));
  }

  static String countSkippedLockedSql(Phase phase) {
    return Objects.requireNonNull(COUNT_SQL.get(phase));
  }

  List<ConferenceSession> claim(Phase phase, Instant cutoff, Instant asOf, int limit) {
    try (PreparedStatement ps = connection.prepareStatement(claimSql(phase))) {
      ps.setObject(1, Jdbc.ts(cutoff));
      ps.setObject(2, Jdbc.ts(asOf));
      ps.setInt(3, limit);
      List<ConferenceSession> rows = new ArrayList<>(limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(session(rs));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new StoreException("claim " + phase.label() + " failed: " + Jdbc.describe(e), e);
    }
  }

  // The ReaperStore.Batch signature again (PostgresBatch delegates here): one port, one
  // implementation, not a second copy of the rule.
  int countSkippedLocked(
      Phase phase,
      Instant cutoff,
      Instant asOf,
      List<ConferenceSession> claimed,
      int limit,
      ClaimPosition after) {
    // A full claim may have stopped before later claimable rows: only rows up to its last position
    // were passed over. A claim that was not full passed over every claimable row it did not take.
    ClaimPosition upTo =
        claimed.size() >= limit && !claimed.isEmpty()
            ? ClaimPosition.of(phase, claimed.get(claimed.size() - 1))
            : null;
    List<UUID> ids = new ArrayList<>(claimed.size());
    claimed.forEach(s -> ids.add(s.id()));
    try (PreparedStatement ps = connection.prepareStatement(countSkippedLockedSql(phase))) {
      int i = 1;
      ps.setObject(i++, Jdbc.ts(cutoff));
      ps.setObject(i++, Jdbc.ts(asOf));
      i = bindBound(ps, i, after);
      i = bindBound(ps, i, upTo);
      ps.setArray(i, Jdbc.uuidArray(connection, ids));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new StoreException("count due " + phase.label() + " failed: " + Jdbc.describe(e), e);
    }
  }

  private static int bindBound(PreparedStatement ps, int i, @Nullable ClaimPosition bound)
      throws SQLException {
    ps.setObject(i++, bound == null ? null : Jdbc.ts(bound.orderKey()));
    ps.setObject(i++, bound == null ? null : Jdbc.ts(bound.orderKey()));
    ps.setObject(i++, bound == null ? null : bound.id());
    return i;
  }

  /** A claimed row as {@link #CLAIM} returns it. */
  // One column a line on purpose: the row mapper names every column CLAIM returns, in order.
  static ConferenceSession session(ResultSet rs) throws SQLException {
    return new ConferenceSession(
        Jdbc.uuid(rs, "id"),
        Jdbc.uuid(rs, "chat_id"),
        Jdbc.uuid(rs, "deal_id"),
        Jdbc.uuid(rs, "tenant_id"),
        rs.getString("media_type"),
        rs.getString("status"),
        Jdbc.uuid(rs, "started_by_user_id"),
        Objects.requireNonNull(Jdbc.instant(rs, "created_at")),
        Jdbc.instant(rs, "started_at"),
        Objects.requireNonNull(Jdbc.instant(rs, "last_activity_at")),
        rs.getInt("active_participant_count"),
        rs.getInt("peak_participant_count"),
        Jdbc.uuids(rs, "participants"),
        Jdbc.uuid(rs, "latest_recording_id"),
        Jdbc.uuids(rs, "active_recording_ids"),
        Jdbc.instant(rs, "reaper_next_attempt_at"));
  }
}
