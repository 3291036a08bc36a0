package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * Delivery leases are measured on the database's clock: instances whose own clocks are minutes
 * apart neither take each other's live leases nor keep an expired one alive.
 */
class LeaseClockSkewTest extends DatabaseTest {
  static final Duration LEASE = Duration.ofMinutes(2);
  static final Duration SKEW = Duration.ofMinutes(10);

  /** A real reaper cycle closes a recorded room: one pending stop request, due now. */
  UUID stopRequest() {
    Instant now = Instant.now();
    Room room = rooms.insert(Rooms.emptyActive(now.minusSeconds(300)));
    rooms.recording(room.id, "Recording", room.startedAt);
    new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            ConferenceRoomReaperOptions.defaults(),
            ReaperObserver.NONE,
            List.of())
        .runOnce(now, Cancellation.NONE);
    return (UUID) rooms.query("SELECT id FROM messenger.recorder_stop_requests").get(0).get("id");
  }

  LeasedRows<StopRequest> owner(String name) {
    return new DeliveryStore(db.dataSource(), Duration.ofSeconds(5)).stopRequests(name);
  }

  @Test
  void an_instance_whose_clock_runs_ahead_does_not_take_a_live_lease() throws Exception {
    UUID id = stopRequest();
    assertThat(owner("recorder-A").claim(Instant.now(), 10, LEASE))
        .extracting(StopRequest::id)
        .containsExactly(id);

    // B's clock is 10 minutes ahead: by its own clock A's 2-minute lease ran out long ago.
    assertThat(owner("recorder-B").claim(Instant.now().plus(SKEW), 10, LEASE)).isEmpty();
    assertThat(rooms.query("SELECT locked_by FROM messenger.recorder_stop_requests").get(0))
        .containsEntry("locked_by", "recorder-A");
  }

  @Test
  void a_lease_stamped_by_an_instance_whose_clock_runs_behind_still_lasts_the_lease()
      throws Exception {
    UUID id = stopRequest();
    // A's clock is 10 minutes behind; its lease must not be over before it was taken.
    assertThat(owner("recorder-A").claim(Instant.now().minus(SKEW), 10, LEASE))
        .extracting(StopRequest::id)
        .containsExactly(id);

    assertThat(owner("recorder-B").claim(Instant.now(), 10, LEASE)).isEmpty();
    Object leftMs =
        rooms
            .query(
                "SELECT extract(epoch FROM locked_until - clock_timestamp()) * 1000 AS left_ms"
                    + " FROM messenger.recorder_stop_requests")
            .get(0)
            .get("left_ms");
    assertThat(((Number) leftMs).doubleValue())
        .isBetween(LEASE.minusSeconds(30).toMillis() * 1.0, LEASE.toMillis() * 1.0);
  }

  @Test
  void an_expired_lease_is_taken_over_by_an_instance_whose_clock_runs_behind() throws Exception {
    UUID id = stopRequest();
    owner("recorder-A").claim(Instant.now(), 10, LEASE);
    rooms.exec(
        "UPDATE messenger.recorder_stop_requests"
            + " SET locked_until = clock_timestamp() - interval '1 second' WHERE id = ?",
        id);

    assertThat(owner("recorder-B").claim(Instant.now().minus(SKEW), 10, LEASE))
        .extracting(StopRequest::id)
        .containsExactly(id);
  }
}
