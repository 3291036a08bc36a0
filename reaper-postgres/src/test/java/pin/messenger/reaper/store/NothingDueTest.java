package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * The run lock's round trip tells a cycle which phases have nothing due ({@link
 * ReaperStore.RunLock#nothingDue}), and the cycle sends those phases no statement. A phase must
 * never be found idle while it has a row to claim or to re-arm: each case below is the instant just
 * before and the instant a phase gains work.
 */
class NothingDueTest {
  static final ConferenceRoomReaperOptions OPTIONS = ConferenceRoomReaperOptions.defaults();
  static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
  static final Duration MICRO = Duration.ofNanos(1_000);
  static final Set<Phase> ALL = EnumSet.allOf(Phase.class);

  static TestDatabase db;
  Rooms rooms;
  PostgresReaperStore store;
  ConferenceRoomReaper reaper;

  @BeforeAll
  static void start() {
    db = TestDatabase.create();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    rooms = new Rooms(db.dataSource());
    rooms.truncateAll();
    store = new PostgresReaperStore(db.dataSource());
    reaper = new ConferenceRoomReaper(store, OPTIONS, ReaperObserver.NONE, List.of());
  }

  /** The phases with nothing due at {@code asOf}, as a cycle's lock attempt reads them. */
  Set<Phase> nothingDue(Instant asOf) {
    try (ReaperStore.RunLock lock = store.tryAcquireRunLock(OPTIONS.lockTtl(), asOf, OPTIONS)) {
      assertThat(lock.acquired()).isTrue();
      Set<Phase> idle = EnumSet.noneOf(Phase.class);
      for (Phase phase : Phase.values()) {
        if (lock.nothingDue(phase)) {
          idle.add(phase);
        }
      }
      return idle;
    }
  }

  void cycle(Instant asOf) {
    reaper.runOnce(asOf, Cancellation.NONE);
  }

  @Test
  void an_empty_table_has_nothing_due_in_any_phase() {
    assertThat(nothingDue(T0)).isEqualTo(ALL);
  }

  @Test
  void a_room_the_messenger_inserted_is_work_until_a_cycle_arms_it() {
    rooms.insert(Rooms.occupied(T0, 2));
    rooms.insert(Rooms.provisioning(T0));

    assertThat(nothingDue(T0)).containsExactly(Phase.EMPTY_ROOM);
    cycle(T0);
    assertThat(nothingDue(T0)).isEqualTo(ALL);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status IN ('Active', 'Provisioning') AND reaper_window_start = '-infinity'"))
        .isZero();
  }

  @Test
  void a_room_the_heartbeat_moved_on_is_work_when_its_old_window_ends_and_is_re_armed() {
    Rooms.Room room = rooms.insert(Rooms.occupied(T0, 2));
    cycle(T0);
    Instant later = T0.plus(Duration.ofHours(1));
    rooms.exec(
        "UPDATE messenger.conference_sessions SET last_activity_at = ? WHERE id = ?",
        Rooms.ts(later),
        room.id);
    Instant oldWindowEnd = T0.plus(OPTIONS.staleLiveTimeout());

    assertThat(nothingDue(oldWindowEnd.minus(MICRO))).contains(Phase.STALE_LIVE);
    assertThat(nothingDue(oldWindowEnd)).doesNotContain(Phase.STALE_LIVE);
    cycle(oldWindowEnd);
    assertThat(rooms.status(room.id)).isEqualTo("Active");
    assertThat(nothingDue(oldWindowEnd)).contains(Phase.STALE_LIVE);

    Instant windowEnd = later.plus(OPTIONS.staleLiveTimeout());
    assertThat(nothingDue(windowEnd.minus(MICRO))).contains(Phase.STALE_LIVE);
    assertThat(nothingDue(windowEnd)).doesNotContain(Phase.STALE_LIVE);
    cycle(windowEnd);
    assertThat(rooms.status(room.id)).isEqualTo("Ended");
  }

  @Test
  void an_empty_room_is_work_from_the_end_of_its_grace() {
    Rooms.Room room = rooms.insert(Rooms.emptyActive(T0));
    cycle(T0);
    Instant graceEnd = T0.plus(OPTIONS.emptyRoomGrace());

    assertThat(nothingDue(graceEnd.minus(MICRO))).isEqualTo(ALL);
    assertThat(nothingDue(graceEnd)).doesNotContain(Phase.EMPTY_ROOM);
    cycle(graceEnd);
    assertThat(rooms.status(room.id)).isEqualTo("Ended");
    assertThat(nothingDue(graceEnd)).isEqualTo(ALL);
  }

  @Test
  void a_room_in_poison_backoff_is_work_from_the_end_of_its_backoff() {
    Rooms.Room provisioning = rooms.insert(Rooms.provisioning(T0));
    cycle(T0);
    Instant due = T0.plus(OPTIONS.provisionTimeout());
    Instant retry = due.plus(Duration.ofMinutes(3));
    rooms.exec(
        "UPDATE messenger.conference_sessions SET reaper_next_attempt_at = ? WHERE id = ?",
        Rooms.ts(retry),
        provisioning.id);

    assertThat(nothingDue(due)).contains(Phase.PROVISION_TIMEOUT);
    assertThat(nothingDue(retry.minus(MICRO))).contains(Phase.PROVISION_TIMEOUT);
    assertThat(nothingDue(retry)).doesNotContain(Phase.PROVISION_TIMEOUT);
    cycle(retry);
    assertThat(rooms.status(provisioning.id)).isEqualTo("Failed");
  }

  @Test
  void the_re_arm_leaves_a_due_room_to_the_claim() throws Exception {
    Rooms.Room due = rooms.insert(Rooms.occupied(T0.minus(OPTIONS.staleLiveTimeout()), 2));
    Rooms.Room notDue = rooms.insert(Rooms.occupied(T0, 2));

    try (java.sql.Connection c = db.dataSource().getConnection()) {
      assertThat(Deadlines.rearm(c, Phase.STALE_LIVE, T0, OPTIONS)).isEqualTo(1);
    }

    String unarmed =
        "SELECT count(*) FROM messenger.conference_sessions"
            + " WHERE id = ? AND reaper_window_start = '-infinity'";
    assertThat(rooms.count(unarmed, due.id)).isEqualTo(1);
    assertThat(rooms.count(unarmed, notDue.id)).isZero();
    cycle(T0);
    assertThat(rooms.status(due.id)).isEqualTo("Ended");
    assertThat(rooms.status(notDue.id)).isEqualTo("Active");
  }

  @Test
  void a_runner_without_the_lock_reads_no_phase() {
    rooms.insert(Rooms.emptyActive(T0));
    try (ReaperStore.RunLock held = store.tryAcquireRunLock(OPTIONS.lockTtl(), T0, OPTIONS);
        ReaperStore.RunLock rival = store.tryAcquireRunLock(OPTIONS.lockTtl(), T0, OPTIONS)) {
      assertThat(held.acquired()).isTrue();
      assertThat(rival.acquired()).isFalse();
      for (Phase phase : Phase.values()) {
        assertThat(rival.nothingDue(phase)).as(phase.label()).isFalse();
      }
    }
  }
}
