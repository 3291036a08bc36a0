package pin.messenger.reaper.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * The demo's simulated messenger on real PostgreSQL, stepped on a clock the test moves: the same
 * seed plays the same messenger, every fate of a room shows up, and a room someone else closed (the
 * reaper) is never written to again.
 */
class MessengerSimulatorTest {
  static final Duration GRACE = Duration.ofSeconds(2);
  static final Duration STEP = Duration.ofMillis(200);
  static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  static TestDatabase first;
  static TestDatabase second;

  @BeforeAll
  static void databases() {
    first = TestDatabase.create();
    second = TestDatabase.create();
  }

  @AfterAll
  static void close() {
    first.close();
    second.close();
  }

  /** A clock the test moves by hand. */
  static final class StepClock extends Clock {
    Instant now = T0;

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  static void play(MessengerSimulator sim, StepClock clock, int steps) {
    for (int i = 0; i < steps; i++) {
      sim.step();
      clock.now = clock.now.plus(STEP);
    }
  }

  /** What the messenger left in the database, without the random ids. */
  static List<Map<String, Object>> summary(Rooms rooms) {
    return rooms.query(
        "SELECT status, coalesce(end_reason, '') AS end_reason, active_participant_count,"
            + " peak_participant_count, media_type, extract(epoch FROM created_at) AS created,"
            + " extract(epoch FROM last_activity_at) AS last_activity, count(*) AS n"
            + " FROM messenger.conference_sessions GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 6, 1, 2, 3, 4, 5, 7");
  }

  @Test
  void the_same_seed_plays_the_same_messenger_and_every_fate_shows_up() {
    Rooms a = new Rooms(first.dataSource());
    Rooms b = new Rooms(second.dataSource());
    a.truncateAll();
    b.truncateAll();
    StepClock clockA = new StepClock();
    StepClock clockB = new StepClock();
    MessengerSimulator simA = new MessengerSimulator(first.dataSource(), clockA, GRACE, 42);
    MessengerSimulator simB = new MessengerSimulator(second.dataSource(), clockB, GRACE, 42);

    play(simA, clockA, 75); // 15 s of messenger
    play(simB, clockB, 75);

    assertThat(simB.roomsCreated()).isEqualTo(simA.roomsCreated());
    assertThat(summary(b)).isEqualTo(summary(a));
    assertThat(simB.rejoinedRooms()).hasSameSizeAs(simA.rejoinedRooms());

    // About 6 rooms in 10 steps, each one row.
    assertThat(simA.roomsCreated()).isBetween(30, 60);
    assertThat(a.count("SELECT count(*) FROM messenger.conference_sessions"))
        .isEqualTo(simA.roomsCreated());
    assertThat(
            a.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Ended'"
                    + " AND end_reason = 'Completed'"))
        .as("ended through end-conference")
        .isPositive();
    assertThat(
            a.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Provisioning'"
                    + " AND created_at < ?",
                Rooms.ts(clockA.now.minusSeconds(5))))
        .as("never admitted")
        .isPositive();
    assertThat(
            a.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'"
                    + " AND active_participant_count = 0"))
        .as("everyone left")
        .isPositive();
    assertThat(
            a.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'"
                    + " AND active_participant_count > 0 AND last_activity_at < ?",
                Rooms.ts(clockA.now.minusSeconds(3))))
        .as("dropped without leaving: no heartbeat any more")
        .isPositive();
    assertThat(simA.rejoinedRooms()).as("re-joined within the grace").isNotEmpty();
    for (UUID id : simA.rejoinedRooms()) {
      assertThat(a.status(id)).isIn("Active", "Ended");
    }
  }

  @Test
  void a_room_closed_by_someone_else_is_never_written_again() {
    Rooms r = new Rooms(first.dataSource());
    r.truncateAll();
    StepClock clock = new StepClock();
    MessengerSimulator sim = new MessengerSimulator(first.dataSource(), clock, GRACE, 7);
    play(sim, clock, 20);
    // The reaper's close, as far as the messenger can see: every live room is terminal now.
    r.exec(
        "UPDATE messenger.conference_sessions SET status = 'Failed', end_reason = 'Error',"
            + " ended_at = ?, updated_at = ? WHERE status IN ('Provisioning', 'Active')",
        Rooms.ts(clock.now),
        Rooms.ts(clock.now));
    List<Map<String, Object>> closed =
        r.query(
            "SELECT id, status, end_reason, updated_at, last_activity_at, active_participant_count,"
                + " started_at FROM messenger.conference_sessions WHERE end_reason = 'Error' ORDER BY id");
    assertThat(closed).isNotEmpty();

    play(sim, clock, 60);

    assertThat(
            r.query(
                "SELECT id, status, end_reason, updated_at, last_activity_at, active_participant_count,"
                    + " started_at FROM messenger.conference_sessions WHERE id::text = ANY(?) ORDER BY id",
                (Object) closed.stream().map(m -> m.get("id").toString()).toArray(String[]::new)))
        .isEqualTo(closed);
  }
}
