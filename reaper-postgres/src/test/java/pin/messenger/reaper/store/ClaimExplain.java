package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ClaimPosition;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;

/** The plan of a batch's claim statement, for the tests that read its plan or its buffers. */
final class ClaimExplain {
  private ClaimExplain() {}

  /**
   * The batch's claim statement as PostgresBatch sends it (no run lock to check), over a drain
   * cursor's ids when given.
   */
  static String explain(
      DataSource dataSource,
      Instant asOf,
      String explain,
      Phase phase,
      @Nullable ClaimPosition after,
      int limit,
      java.util.@Nullable List<java.util.UUID> cursorIds)
      throws Exception {
    Instant cutoff = phase.cutoff(asOf, ConferenceRoomReaperOptions.defaults());
    String sql = cursorIds == null ? Claims.claimSql(phase) : DrainCursor.claimSql(phase);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(explain + sql)) {
      c.setAutoCommit(false);
      if (cursorIds == null) {
        Claims.bind(ps, 1, phase, cutoff, asOf, limit, null);
      } else {
        DrainCursor.bind(
            ps,
            1,
            phase,
            cutoff,
            asOf,
            limit,
            java.util.Objects.requireNonNull(after),
            null,
            c.createArrayOf("uuid", cursorIds.toArray()));
      }
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      c.rollback();
      return plan.toString();
    }
  }
}
