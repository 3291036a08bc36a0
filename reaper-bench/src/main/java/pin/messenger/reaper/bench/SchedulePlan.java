package pin.messenger.reaper.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * The schedule section's simulated messenger: which rooms fall due when (a fixed seed), and the
 * generator's writes that make them due at those instants.
 */
final class SchedulePlan {
  static final List<Double> RATES = List.of(0.1, 1.0, 10.0);
  static final Duration GRACE = Duration.ofSeconds(90);
  static final Duration PROVISION = Duration.ofMinutes(2);

  /** One planned room: its phase, its due instant, and when (if ever) a participant rejoins. */
  record Room(UUID id, String phase, Instant due, Instant rejoin) {}

  /** One write of the generator, at {@code at}. */
  record Event(Instant at, Room room, String what) {}

  private SchedulePlan() {}

  /** The rooms falling due in each rate's {@code window}, from {@code start}, with a fixed seed. */
  static List<Room> plan(Duration window, Instant start) {
    Random random = new Random(22);
    List<Room> rooms = new ArrayList<>();
    for (int k = 0; k < RATES.size(); k++) {
      Instant from = start.plus(window.multipliedBy(k));
      long n = Math.round(RATES.get(k) * window.toSeconds());
      for (long i = 0; i < n; i++) {
        Instant due = from.plusMillis((long) (random.nextDouble() * window.toMillis()));
        int kind = random.nextInt(20);
        String phase = kind < 14 ? "empty-room" : kind < 17 ? "provision-timeout" : "stale-live";
        Instant rejoin =
            phase.equals("empty-room") && random.nextInt(5) == 0
                ? due.minus(GRACE).plusMillis(10_000 + random.nextInt(50_000))
                : Instant.MAX;
        rooms.add(new Room(UUID.randomUUID(), phase, due, rejoin));
      }
    }
    return rooms;
  }

  /**
   * The generator's writes for {@code plan}, moved by {@code shift}, in time order: an empty room
   * empties one grace before it is due, a Provisioning room is created one provision timeout
   * before; stale-live rooms need no write (their heartbeat is dated in advance).
   */
  static List<Event> events(List<Room> plan, Duration shift) {
    List<Event> events = new ArrayList<>();
    for (Room r : plan) {
      Room room =
          new Room(
              r.id(),
              r.phase(),
              r.due().plus(shift),
              r.rejoin().equals(Instant.MAX) ? Instant.MAX : r.rejoin().plus(shift));
      switch (room.phase()) {
        case "empty-room" -> events.add(new Event(room.due().minus(GRACE), room, "empty"));
        case "provision-timeout" ->
            events.add(new Event(room.due().minus(PROVISION), room, "create"));
        default -> {}
      }
      if (!room.rejoin().equals(Instant.MAX)) {
        events.add(new Event(room.rejoin(), room, "rejoin"));
      }
    }
    events.sort(Comparator.comparing(Event::at));
    return events;
  }
}
