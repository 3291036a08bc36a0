package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import pin.messenger.reaper.core.ClaimPosition;
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
  static final int ROOMS_PER_KIND = 300;

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
    for (int i = 0; i < ROOMS_PER_KIND; i++) {
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
  void claim_uses_its_partial_index_and_reads_no_terminal_row(Phase phase) throws Exception {
    String plan = explain("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ", phase, null);

    // The table is scanned only at the tuples (or pages) the phase's partial index points to: live
    // rows (ix_conf_due for a deadline phase: here none is armed yet, so every row of its status;
    // ix_conf_active's empty range for empty-room). Neither index holds last_activity_at, so a heap
    // filter on it (and a bitmap scan) is expected.
    assertThat(plan).containsPattern("(Index Scan|Bitmap Index Scan) (using|on) " + index(phase));
    if (phase == Phase.EMPTY_ROOM) {
      assertThat(plan).doesNotContain("ix_conf_due");
    }
    assertThat(plan).doesNotContain("Seq Scan on conference_sessions");
    // Rows the scan read from the table: never more than the live rows, and for empty-room only the
    // empty rooms (the participant count is checked in the index, occupied rooms are not visited).
    // One scan per claim: the skipped-locked count reads the claim's candidates, not the table
    // again (a second scan would double this).
    assertThat(rowsRead(plan))
        .isLessThanOrEqualTo(phase == Phase.EMPTY_ROOM ? ROOMS_PER_KIND : 3 * ROOMS_PER_KIND);
    // The passed-over candidates are told from the claimed ones by a hash, not a nested loop over
    // the claimed rows (window × limit comparisons).
    assertThat(plan).contains("hashed SubPlan").doesNotContain("Nested Loop Anti Join");
    // The primary key only locks candidates, one lookup each, and only until the limit is reached:
    // never more lookups than the candidate window.
    assertThat(pkeyLookups(plan)).isLessThanOrEqualTo(LIMIT * Claims.WINDOW_FACTOR);
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void a_later_batch_without_a_cursor_uses_its_partial_index_and_scans_once(Phase phase)
      throws Exception {
    Instant cutoff = phase.cutoff(AS_OF, ConferenceRoomReaperOptions.defaults());
    String plan =
        explain(
            "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ",
            phase,
            new ClaimPosition(cutoff.minusSeconds(3600), new java.util.UUID(0, 0)));

    assertThat(plan)
        .containsPattern(index(phase))
        .doesNotContain("Seq Scan on conference_sessions");
    assertThat(rowsRead(plan))
        .isLessThanOrEqualTo(phase == Phase.EMPTY_ROOM ? ROOMS_PER_KIND : 3 * ROOMS_PER_KIND);
  }

  @org.junit.jupiter.api.Test
  void a_later_drain_batch_reads_its_window_not_the_backlog() throws Exception {
    // Since V6 the index holds no last_activity_at, so the first batch's scan reads every due empty
    // room to find the oldest. A later batch of the drain takes its window from the read-ahead
    // instead: its reads must not grow with the backlog.
    Phase phase = Phase.EMPTY_ROOM;
    Instant cutoff = phase.cutoff(AS_OF, ConferenceRoomReaperOptions.defaults());
    int limit = 10;
    List<java.util.UUID> window = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection()) {
      for (ClaimPosition p :
          DrainCursor.prefetch(c, phase, cutoff, AS_OF, null, Claims.window(limit))) {
        window.add(p.id());
      }
    }
    assertThat(window).hasSize(Claims.window(limit));
    String scan = explain("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ", phase, null, limit, null);
    // A later batch always follows one: its position is before the whole backlog here.
    ClaimPosition before = new ClaimPosition(cutoff.minusSeconds(86_400), new java.util.UUID(0, 0));
    String fromCursor =
        explain("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ", phase, before, limit, window);

    // The premise: the scan reads the whole due backlog (more than 10 windows).
    assertThat(rowsRead(scan)).isGreaterThan(10L * Claims.window(limit));
    // From the cursor: the window's rows and the claim's locks, by primary key; no scan at all.
    assertThat(fromCursor)
        .doesNotContain("ix_conf_active")
        .doesNotContain("ix_conf_due")
        .doesNotContain("Seq Scan");
    assertThat(tableRowsRead(fromCursor)).isLessThanOrEqualTo(2L * Claims.window(limit));
  }

  @org.junit.jupiter.api.Test
  void the_due_times_read_uses_the_partial_indexes_and_reads_only_what_a_cycle_visits()
      throws Exception {
    // Armed as a cycle would (the rows here were inserted without deadlines, as the messenger's).
    try (Connection c = db.dataSource().getConnection()) {
      for (Phase phase : List.of(Phase.PROVISION_TIMEOUT, Phase.STALE_LIVE)) {
        Deadlines.rearm(c, phase, AS_OF, ConferenceRoomReaperOptions.defaults());
      }
    }
    String plan;
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + DueReads.DUE_TIMES_SQL)) {
      DueReads.bindDueTimes(ps, ConferenceRoomReaperOptions.defaults());
      StringBuilder out = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.append(rs.getString(1)).append('\n');
        }
      }
      plan = out.toString();
    }

    assertThat(plan).containsPattern("(Index Scan|Bitmap Index Scan) (using|on) ix_conf_active");
    assertThat(plan).containsPattern("Index (Only )?Scan using ix_conf_due");
    assertThat(plan).doesNotContain("Seq Scan on conference_sessions");
    // The empty rooms (empty-room's range), the rows due now (left unarmed: the claim takes them;
    // here the provisioning rooms past their timeout) and the heads of ix_conf_due: not the
    // occupied rooms nor the history of terminal rows behind them.
    long dueProvisioning = ROOMS_PER_KIND - 120;
    assertThat(rowsRead(plan)).isLessThanOrEqualTo(ROOMS_PER_KIND + dueProvisioning + 10);
  }

  @org.junit.jupiter.api.Test
  void ix_conf_active_names_no_column_a_heartbeat_writes() {
    // A heartbeat updates last_activity_at (and updated_at): an index naming either would make
    // every heartbeat a non-HOT update (docs/design.md, "Index").
    String def =
        (String)
            new Rooms(db.dataSource())
                .query("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_conf_active'")
                .get(0)
                .get("indexdef");
    assertThat(def)
        .contains("(status, active_participant_count, created_at)")
        .doesNotContain("last_activity_at")
        .doesNotContain("updated_at");
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

  /**
   * The rows the plan's scan of conference_sessions read from the table: the rows it returned plus
   * those its filter or recheck removed (EXPLAIN ANALYZE).
   */
  private static long rowsRead(String plan) {
    long read = 0;
    boolean inScan = false;
    for (String line : plan.split("\n")) {
      if (line.contains("->") || !inScan) {
        inScan =
            line.contains("on conference_sessions")
                && (line.contains("Index Scan using ix_conf_active")
                    || line.contains("Index Scan using ix_conf_due")
                    || line.contains("Index Only Scan using ix_conf_due")
                    || line.contains("Bitmap Heap Scan"));
        if (inScan && line.contains("(never executed)")) {
          // A scan the executor never started read nothing.
          inScan = false;
        } else if (inScan) {
          Matcher m = ACTUAL_ROWS.matcher(line);
          assertThat(m.find()).as("actual rows in %s", line).isTrue();
          read += Long.parseLong(m.group(1));
        }
      } else {
        Matcher m = REMOVED.matcher(line);
        if (m.find()) {
          read += Long.parseLong(m.group(1));
        }
      }
    }
    return read;
  }

  /** The partial index a phase's claim reads: {@link PhaseRule#visited}. */
  private static String index(Phase phase) {
    // Rows never armed (all of them here, as the messenger inserted them) are at its head.
    // Provision-timeout's window is in ix_conf_active's key (created_at): a range of the rows past
    // it is as good a visit as the deadline's.
    return switch (phase) {
      case EMPTY_ROOM -> "ix_conf_active";
      case PROVISION_TIMEOUT -> "ix_conf_(active|due)";
      case STALE_LIVE -> "ix_conf_due";
    };
  }

  private static final Pattern ACTUAL_ROWS = Pattern.compile("actual rows=(\\d+)");
  private static final Pattern REMOVED =
      Pattern.compile("Rows Removed by (?:Filter|Index Recheck): (\\d+)");

  private static final int LIMIT = 100;

  /** Primary-key lookups the plan made: the loops of its index scans on the primary key. */
  private static long pkeyLookups(String plan) {
    long loops = 0;
    for (String line : plan.split("\n")) {
      if (line.contains("conference_sessions_pkey") && !line.contains("never executed")) {
        Matcher m = LOOPS.matcher(line);
        assertThat(m.find()).as("loops in %s", line).isTrue();
        loops += Long.parseLong(m.group(1));
      }
    }
    return loops;
  }

  private static final Pattern LOOPS = Pattern.compile("loops=(\\d+)");

  /**
   * Rows the plan read from conference_sessions by any scan: rows returned times loops, and those a
   * filter removed.
   */
  private static long tableRowsRead(String plan) {
    long read = 0;
    boolean inScan = false;
    for (String line : plan.split("\n")) {
      if (line.contains("->") || !inScan) {
        inScan = line.contains("Scan") && line.contains("on conference_sessions");
        if (inScan && !line.contains("never executed")) {
          Matcher rows = ACTUAL_ROWS.matcher(line);
          Matcher loops = LOOPS.matcher(line);
          assertThat(rows.find() && loops.find()).as("rows and loops in %s", line).isTrue();
          read += Long.parseLong(rows.group(1)) * Long.parseLong(loops.group(1));
        }
      } else {
        Matcher m = REMOVED.matcher(line);
        if (m.find()) {
          read += Long.parseLong(m.group(1));
        }
      }
    }
    return read;
  }

  private static String explain(String explain, Phase phase, @Nullable ClaimPosition after)
      throws Exception {
    return explain(explain, phase, after, LIMIT, null);
  }

  private static String explain(
      String explain,
      Phase phase,
      @Nullable ClaimPosition after,
      int limit,
      java.util.@Nullable List<java.util.UUID> cursorIds)
      throws Exception {
    return ClaimExplain.explain(db.dataSource(), AS_OF, explain, phase, after, limit, cursorIds);
  }
}
