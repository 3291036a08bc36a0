package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * The idle cycle's cost is O(live rooms), once: with nothing due, the three claims of a cycle
 * together visit at most 1.2 shared buffers per live room. Each live room sits on a heap page of
 * its own among the history, so a claim that visited every live room twice (a claim and a separate
 * skipped-locked count) would read about two buffers per room and fail.
 */
class IdleCycleBuffersTest {
  static TestDatabase db;
  static final Instant AS_OF = Instant.parse("2026-12-02T10:00:00Z");
  static final int LIVE_ROOMS = 1_000;
  static final int HISTORY_PER_LIVE_ROOM = 60;
  static final int LIMIT = 100;

  @BeforeAll
  static void rooms() {
    db = TestDatabase.create();
    Rooms rooms = new Rooms(db.dataSource());
    List<Room> batch = new ArrayList<>();
    for (int i = 0; i < LIVE_ROOMS; i++) {
      for (int h = 0; h < HISTORY_PER_LIVE_ROOM; h++) {
        batch.add(Rooms.ended(AS_OF.minusSeconds(86_400 + i * 100L + h)));
      }
      // Occupied and recently active: live, due in no phase.
      batch.add(Rooms.occupied(AS_OF.minusSeconds(i % 60), 2));
      if (batch.size() >= 6_000) {
        rooms.insertAll(batch);
        batch.clear();
      }
    }
    rooms.insertAll(batch);
    rooms.exec("VACUUM ANALYZE messenger.conference_sessions");
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void an_idle_cycle_visits_at_most_1_2_buffers_per_live_room() throws Exception {
    long pagesWithLiveRooms =
        new Rooms(db.dataSource())
            .count(
                "SELECT count(DISTINCT (ctid::text::point)[0]) FROM messenger.conference_sessions"
                    + " WHERE status = 'Active'");
    // The premise that makes the bound mean something: the live rooms are spread over the heap.
    assertThat(pagesWithLiveRooms).isGreaterThan(LIVE_ROOMS * 9L / 10);

    long buffers = 0;
    for (Phase phase : Phase.values()) {
      buffers += claimBuffers(phase);
    }

    // Measured: 1,007 (stale-live 1,003: one heap page per live room and the index; empty-room and
    // provision-timeout 2 each: the index only).
    assertThat(buffers).isLessThanOrEqualTo(LIVE_ROOMS * 12L / 10);
  }

  @Test
  void once_armed_an_idle_cycle_s_claims_visit_a_constant_number_of_buffers() throws Exception {
    // As the first cycle does: every live room gets its deadline (4 h ahead: nothing is due).
    try (Connection c = db.dataSource().getConnection()) {
      assertThat(
              Deadlines.rearm(c, Phase.STALE_LIVE, AS_OF, ConferenceRoomReaperOptions.defaults()))
          .isEqualTo(LIVE_ROOMS);
    }
    new Rooms(db.dataSource()).exec("VACUUM ANALYZE messenger.conference_sessions");

    long buffers = 0;
    StringBuilder plans = new StringBuilder();
    for (Phase phase : Phase.values()) {
      buffers += claimBuffers(phase);
      plans.append(explain(phase));
    }

    // Index probes only: no live room's page is read (before deadlines: one per live room). A
    // bound that does not grow with LIVE_ROOMS; ScaleBench shows it at 10k..1M rooms.
    assertThat(buffers).as(plans.toString()).isLessThanOrEqualTo(30);
  }

  @Test
  void once_armed_the_lock_s_probe_of_every_phase_reads_a_constant_number_of_buffers()
      throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      Deadlines.rearm(c, Phase.STALE_LIVE, AS_OF, ConferenceRoomReaperOptions.defaults());
    }
    new Rooms(db.dataSource()).exec("VACUUM ANALYZE messenger.conference_sessions");

    String plan = "";
    long buffers = 0;
    for (int run = 0; run < 2; run++) {
      try (Connection c = db.dataSource().getConnection();
          java.sql.PreparedStatement ps =
              c.prepareStatement(
                  "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT "
                      + DueReads.hasWork("true"))) {
        DueReads.bindHasWork(ps, 1, AS_OF, ConferenceRoomReaperOptions.defaults());
        StringBuilder lines = new StringBuilder();
        try (var rs = ps.executeQuery()) {
          while (rs.next()) {
            lines.append(rs.getString(1)).append('\n');
          }
        }
        plan = lines.toString();
      }
      buffers = topBuffers(plan);
    }

    // Index heads only (measured: 10 here, 14 with the lock and pauses at 1M live rooms): nothing
    // that grows with the live rooms.
    assertThat(buffers).as(plan).isLessThanOrEqualTo(20);
  }

  /**
   * Shared buffers (hit + read) one claim statement visited, as EXPLAIN (ANALYZE, BUFFERS) reports
   * them for its top node (children included), on its second run (the first may read catalogs).
   */
  private static long claimBuffers(Phase phase) throws Exception {
    long buffers = 0;
    for (int run = 0; run < 2; run++) {
      buffers = topBuffers(explain(phase));
    }
    return buffers;
  }

  /** The shared buffers (hit + read) of a plan's top node, children included. */
  private static long topBuffers(String plan) {
    Matcher m = BUFFERS.matcher(plan);
    assertThat(m.find()).as("buffers in %s", plan).isTrue();
    long buffers = 0;
    for (String part : m.group(1).trim().split(" ")) {
      String[] kv = part.split("=");
      if (kv[0].equals("hit") || kv[0].equals("read")) {
        buffers += Long.parseLong(kv[1]);
      }
    }
    return buffers;
  }

  private static final Pattern BUFFERS = Pattern.compile("Buffers: shared ([^\\n]*)");

  private static String explain(Phase phase) throws Exception {
    return ClaimExplain.explain(
        db.dataSource(),
        AS_OF,
        "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ",
        phase,
        null,
        LIMIT,
        null);
  }
}
