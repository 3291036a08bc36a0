package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ClockReading;
import pin.messenger.reaper.core.ClockSource;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * Issue 14: the worker's clock two minutes ahead of and behind the database's, with each {@code
 * reaper.clock}. The worker's clock is skewed by injecting {@code Clock.offset(systemUTC, ±2m)}
 * into the reaper; the database (local) keeps true time. Rooms are placed by the database's clock,
 * as the messenger writes them. Default windows: empty-room grace 90 s, provision timeout 2 min.
 *
 * <p>The invariant of {@code reaper.clock=database}: no room is closed before its window has passed
 * by the database's clock, and none is left open for longer than one cycle after it, whatever the
 * worker's clock says.
 */
class ClockSkewTest extends DatabaseTest {
  static final Duration SKEW = Duration.ofMinutes(2);
  static final Duration GRACE = ConferenceRoomReaperOptions.DEFAULT_EMPTY_ROOM_GRACE;
  static final Duration PROVISION = ConferenceRoomReaperOptions.DEFAULT_PROVISION_TIMEOUT;

  final List<ClockReading> readings = new CopyOnWriteArrayList<>();

  ConferenceRoomReaper reaper(ReaperStore store, Duration workerOffset, ClockSource source) {
    ReaperObserver observer =
        new ReaperObserver() {
          @Override
          public void clockRead(ClockReading reading) {
            readings.add(reading);
          }
        };
    return new ConferenceRoomReaper(
        store,
        ConferenceRoomReaperOptions.defaults().toBuilder().clock(source).build(),
        Clock.offset(Clock.systemUTC(), workerOffset),
        observer,
        List.of());
  }

  ConferenceRoomReaper reaper(Duration workerOffset, ClockSource source) {
    return reaper(new PostgresReaperStore(db.dataSource()), workerOffset, source);
  }

  static Instant databaseNow() {
    return (Instant) rooms.query("SELECT clock_timestamp() AS t").get(0).get("t");
  }

  static double seconds(Duration d) {
    return d.toMillis() / 1000.0;
  }

  /** Rooms placed relative to the database's clock. */
  record Placed(Instant databaseNow, Room early, Room provisioning, Room late, Room control) {}

  /**
   * early: empty for 30 s (its grace ends in 60 s); provisioning: created 5 s ago (its timeout ends
   * in 115 s); late: empty for 150 s (its grace ended 60 s ago); control: empty for 10 min.
   */
  static Placed place() {
    Instant now = databaseNow();
    return new Placed(
        now,
        rooms.insert(Rooms.emptyActive(now.minusSeconds(30))),
        rooms.insert(Rooms.provisioning(now.minusSeconds(5))),
        rooms.insert(Rooms.emptyActive(now.minusSeconds(150))),
        rooms.insert(Rooms.emptyActive(now.minusSeconds(600))));
  }

  /** How long before its window ended (by the database's clock) a room was closed; < 0: late. */
  static Duration closedEarlyBy(Room room, Duration window, Instant databaseTimeOfClose) {
    return Duration.between(databaseTimeOfClose, room.lastActivityAt.plus(window));
  }

  @Test
  void worker_two_minutes_ahead_with_the_system_clock_closes_rooms_before_their_window() {
    Placed p = place();

    CycleResult r = reaper(SKEW, ClockSource.SYSTEM).runOnce(Cancellation.NONE);
    Instant closedAt = databaseNow();

    assertThat(readings).hasSize(1);
    assertThat(seconds(readings.get(0).skew())).isCloseTo(-120, within(1.0));
    // Due only by the worker's clock, and closed: 60 s before its grace ended by the database's.
    assertThat(rooms.status(p.early().id)).isEqualTo("Ended");
    Duration early = closedEarlyBy(p.early(), GRACE, closedAt);
    assertThat(seconds(early)).isCloseTo(60, within(2.0));
    // A room 5 s into provisioning is failed at once: a 2-minute skew eats the whole timeout.
    assertThat(rooms.status(p.provisioning().id)).isEqualTo("Failed");
    Duration provisionEarly =
        Duration.between(closedAt, p.provisioning().createdAt.plus(PROVISION));
    assertThat(seconds(provisionEarly)).isCloseTo(115, within(2.0));
    assertThat(rooms.status(p.control().id)).isEqualTo("Ended");
    // ended_at is the worker's asOf: two minutes in the database's future.
    Instant endedAt = (Instant) rooms.row(p.early().id).get("ended_at");
    assertThat(seconds(Duration.between(closedAt, endedAt))).isCloseTo(120, within(2.0));
    assertThat(r.emptyTimeout()).isEqualTo(3);
    assertThat(r.provisionFailed()).isEqualTo(1);
    System.out.printf(
        "scenario clock-skew: worker +2m, reaper.clock=system: measured skew %.3f s; closed 3 empty"
            + " rooms + failed 1 provisioning; the room empty for 30 s closed %.1f s before its"
            + " grace ended, the room provisioning for 5 s failed %.1f s before its timeout;"
            + " ended_at %.1f s in the database's future%n",
        seconds(readings.get(0).skew()),
        seconds(early),
        seconds(provisionEarly),
        seconds(Duration.between(closedAt, endedAt)));
  }

  @Test
  void worker_two_minutes_ahead_with_the_database_clock_closes_nothing_before_its_window() {
    Placed p = place();

    CycleResult r = reaper(SKEW, ClockSource.DATABASE).runOnce(Cancellation.NONE);
    Instant after = databaseNow();

    assertThat(seconds(readings.get(0).skew())).isCloseTo(-120, within(1.0));
    assertThat(rooms.status(p.early().id)).isEqualTo("Active");
    assertThat(rooms.status(p.provisioning().id)).isEqualTo("Provisioning");
    assertThat(rooms.status(p.late().id)).isEqualTo("Ended");
    assertThat(rooms.status(p.control().id)).isEqualTo("Ended");
    // asOf is the database's time: ended_at lies between the placement and the end of the cycle.
    Instant endedAt = (Instant) rooms.row(p.control().id).get("ended_at");
    assertThat(endedAt).isBetween(p.databaseNow(), after);
    assertThat(r.asOf()).isBetween(p.databaseNow(), after);
    assertThat(r.emptyTimeout()).isEqualTo(2);
    assertThat(r.provisionFailed()).isZero();
    System.out.printf(
        "scenario clock-skew: worker +2m, reaper.clock=database: measured skew %.3f s; closed 2"
            + " empty rooms (both past their grace by the database's clock), left the room empty"
            + " for 30 s and the room provisioning for 5 s alone; ended_at %.3f s before the end"
            + " of the cycle by the database's clock%n",
        seconds(readings.get(0).skew()), seconds(Duration.between(endedAt, after)));
  }

  @Test
  void worker_two_minutes_behind_with_the_system_clock_leaves_due_rooms_open_for_up_to_two_more() {
    Placed p = place();
    // Graces that ended 115 s and 125 s ago by the database's clock: on either side of the skew.
    Room overdue115 =
        rooms.insert(Rooms.emptyActive(p.databaseNow().minus(GRACE).minusSeconds(115)));
    Room overdue125 =
        rooms.insert(Rooms.emptyActive(p.databaseNow().minus(GRACE).minusSeconds(125)));

    CycleResult r = reaper(SKEW.negated(), ClockSource.SYSTEM).runOnce(Cancellation.NONE);
    Instant after = databaseNow();

    assertThat(seconds(readings.get(0).skew())).isCloseTo(120, within(1.0));
    // A room is closed only once the worker's clock reaches its window: 2 minutes after the
    // database's (plus up to one polling interval until the next cycle), against the SLO's one
    // interval. 60 s and 115 s overdue: still open; 125 s overdue: closed.
    assertThat(rooms.status(p.late().id)).isEqualTo("Active");
    Duration overdue = closedEarlyBy(p.late(), GRACE, after).negated();
    assertThat(seconds(overdue)).isCloseTo(60, within(2.0));
    assertThat(rooms.status(overdue115.id)).isEqualTo("Active");
    assertThat(rooms.status(overdue125.id)).isEqualTo("Ended");
    assertThat(rooms.status(p.early().id)).isEqualTo("Active");
    assertThat(rooms.status(p.control().id)).isEqualTo("Ended");
    assertThat(r.emptyTimeout()).isEqualTo(2);
    System.out.printf(
        "scenario clock-skew: worker -2m, reaper.clock=system: measured skew %.3f s; closed 2"
            + " empty rooms (overdue 125 s and 8.5 min by the database's clock); left open rooms"
            + " overdue %.1f s and 115 s: a room closes only %d s after its window by the"
            + " database's clock (+ up to one polling interval)%n",
        seconds(readings.get(0).skew()), seconds(overdue), SKEW.toSeconds());
  }

  @Test
  void worker_two_minutes_behind_with_the_database_clock_closes_due_rooms_on_time() {
    Placed p = place();
    Room provisioningLate = rooms.insert(Rooms.provisioning(p.databaseNow().minusSeconds(200)));

    CycleResult r = reaper(SKEW.negated(), ClockSource.DATABASE).runOnce(Cancellation.NONE);
    Instant after = databaseNow();

    assertThat(seconds(readings.get(0).skew())).isCloseTo(120, within(1.0));
    assertThat(rooms.status(p.late().id)).isEqualTo("Ended");
    assertThat(rooms.status(provisioningLate.id)).isEqualTo("Failed");
    assertThat(rooms.status(p.early().id)).isEqualTo("Active");
    assertThat(rooms.status(p.provisioning().id)).isEqualTo("Provisioning");
    assertThat((Instant) rooms.row(p.late().id).get("ended_at")).isBetween(p.databaseNow(), after);
    assertThat(r.emptyTimeout()).isEqualTo(2);
    assertThat(r.provisionFailed()).isEqualTo(1);
    System.out.printf(
        "scenario clock-skew: worker -2m, reaper.clock=database: measured skew %.3f s; closed the"
            + " room whose grace ended 60 s ago and failed the room provisioning for 200 s in the"
            + " first cycle; left the rooms not yet due alone%n",
        seconds(readings.get(0).skew()));
  }

  @Test
  void with_the_database_clock_a_cycle_whose_clock_reading_fails_fails_and_closes_nothing() {
    Placed p = place();
    ReaperStore noClock = new NoClockStore(new PostgresReaperStore(db.dataSource()));

    assertThatThrownBy(() -> reaper(noClock, SKEW, ClockSource.DATABASE).runOnce(Cancellation.NONE))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("database's clock");
    // Never a silent fall-back to the worker's clock, which is 2 minutes ahead here.
    assertThat(rooms.status(p.early().id)).isEqualTo("Active");
    assertThat(rooms.status(p.control().id)).isEqualTo("Active");

    // With the system clock the reading only measures the skew: the cycle goes on without it.
    CycleResult r = reaper(noClock, Duration.ZERO, ClockSource.SYSTEM).runOnce(Cancellation.NONE);
    assertThat(r.lockAcquired()).isTrue();
    assertThat(rooms.status(p.control().id)).isEqualTo("Ended");
    assertThat(readings).isEmpty();
  }

  @Test
  void the_skew_is_measured_every_cycle_in_both_modes_and_is_near_zero_without_an_offset() {
    reaper(Duration.ZERO, ClockSource.SYSTEM).runOnce(Cancellation.NONE);
    reaper(Duration.ZERO, ClockSource.DATABASE).runOnce(Cancellation.NONE);
    reaper(Duration.ZERO, ClockSource.DATABASE).dryRun();

    assertThat(readings).hasSize(3);
    for (ClockReading reading : readings) {
      assertThat(Math.abs(seconds(reading.skew()))).isLessThan(0.5);
      assertThat(reading.roundTrip()).isLessThan(Duration.ofSeconds(1));
    }
  }

  /** The real store, but the database's clock cannot be read. */
  record NoClockStore(ReaperStore delegate) implements ReaperStore {
    @Override
    public RunLock tryAcquireRunLock(
        Duration ttl, Instant asOf, ConferenceRoomReaperOptions options) {
      return delegate.tryAcquireRunLock(ttl, asOf, options);
    }

    @Override
    public Batch beginBatch(Duration statementTimeout, Duration idleTimeout) {
      return delegate.beginBatch(statementTimeout, idleTimeout);
    }

    @Override
    public Backlog backlog(Instant asOf, ConferenceRoomReaperOptions options) {
      return delegate.backlog(asOf, options);
    }

    @Override
    public ClockReading readClock(Clock workerClock) {
      throw new StoreException(
          "could not read the database's clock: [08006] connection refused",
          new java.sql.SQLException("connection refused", "08006"));
    }
  }
}
