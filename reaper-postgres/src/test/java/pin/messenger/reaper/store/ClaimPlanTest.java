package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * Every claim (and its skipped-locked count) is served by the partial index and never reads
 * terminal rows.
 */
class ClaimPlanTest {
  static TestDatabase db;
  static final Instant AS_OF = Instant.parse("2026-12-02T10:00:00Z");

  @BeforeAll
  static void history() {
    db = TestDatabase.create();
    Rooms rooms = new Rooms(db.dataSource());
    List<Room> batch = new ArrayList<>();
    for (int i = 0; i < 30_000; i++) {
      batch.add(Rooms.ended(AS_OF.minusSeconds(100 + i)));
      if (batch.size() == 5_000) {
        rooms.insertAll(batch);
        batch.clear();
      }
    }
    for (int i = 0; i < 300; i++) {
      batch.add(Rooms.occupied(AS_OF.minusSeconds(i), 2));
      batch.add(Rooms.emptyActive(AS_OF.minusSeconds(i)));
      batch.add(Rooms.provisioning(AS_OF.minusSeconds(i)));
    }
    rooms.insertAll(batch);
    rooms.exec("VACUUM ANALYZE messenger.conference_sessions");
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void claim_uses_ix_conf_active_and_reads_no_terminal_row(Phase phase) throws Exception {
    String plan = explain(Claims.claimSql(phase), phase, true);

    assertThat(plan).contains("ix_conf_active");
    assertThat(plan).doesNotContain("Seq Scan on conference_sessions");
    assertThat(plan).doesNotContain("Bitmap Heap Scan on conference_sessions");
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void skipped_locked_count_uses_ix_conf_active(Phase phase) throws Exception {
    String plan = explain(Claims.countSkippedLockedSql(phase), phase, false);

    assertThat(plan).contains("ix_conf_active").doesNotContain("Seq Scan on conference_sessions");
  }

  @org.junit.jupiter.api.Test
  void ix_conf_active_is_partial_over_the_live_statuses() {
    String def =
        (String)
            new Rooms(db.dataSource())
                .query("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_conf_active'")
                .get(0)
                .get("indexdef");
    assertThat(def).contains("WHERE").contains("'Provisioning'").contains("'Active'");
  }

  private static String explain(String sql, Phase phase, boolean claim) throws Exception {
    Instant cutoff = phase.cutoff(AS_OF, ConferenceRoomReaperOptions.defaults());
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
      c.setAutoCommit(false);
      ps.setObject(1, Rooms.ts(cutoff));
      ps.setObject(2, Rooms.ts(AS_OF));
      if (claim) {
        ps.setInt(3, 100);
      } else {
        // A later drain batch: counted past a lower bound, up to the last claimed position.
        Instant after = cutoff.minusSeconds(3600);
        ps.setObject(3, Rooms.ts(after));
        ps.setObject(4, Rooms.ts(after));
        ps.setObject(5, new java.util.UUID(0, 0));
        ps.setObject(6, Rooms.ts(cutoff));
        ps.setObject(7, Rooms.ts(cutoff));
        ps.setObject(8, new java.util.UUID(-1, -1));
        ps.setArray(9, c.createArrayOf("uuid", new Object[] {java.util.UUID.randomUUID()}));
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
