package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The schedule section's event plan: fixed by its seed, as many rooms per window as the rate says,
 * the phase mix its Javadoc states, and writes timed so that each room falls due at its planned
 * instant (the writes' SQL dates the due instant {@code now() + 90 seconds} for an emptied room and
 * {@code now() + 2 minutes} for a created Provisioning room).
 */
class SchedulePlanTest {
  static final Duration WINDOW = Duration.ofSeconds(100);
  static final Duration GRACE = Duration.ofSeconds(90);
  static final Duration PROVISION = Duration.ofMinutes(2);

  static List<SchedulePlan.Room> plan() {
    return SchedulePlan.plan(WINDOW, Instant.EPOCH);
  }

  @Test
  void the_same_seed_plans_the_same_rooms() {
    List<SchedulePlan.Room> a = plan();
    List<SchedulePlan.Room> b = plan();

    assertThat(a).hasSameSizeAs(b);
    for (int i = 0; i < a.size(); i++) {
      assertThat(b.get(i).phase()).isEqualTo(a.get(i).phase());
      assertThat(b.get(i).due()).isEqualTo(a.get(i).due());
      assertThat(b.get(i).rejoin()).isEqualTo(a.get(i).rejoin());
    }
  }

  @Test
  void each_window_holds_its_rate_times_its_length_of_rooms_falling_due_inside_it() {
    List<SchedulePlan.Room> rooms = plan();
    double[] rates = {0.1, 1, 10};

    assertThat(rooms).hasSize(10 + 100 + 1000);
    for (int k = 0; k < rates.length; k++) {
      Instant from = Instant.EPOCH.plus(WINDOW.multipliedBy(k));
      Instant to = from.plus(WINDOW);
      long inside =
          rooms.stream().filter(r -> !r.due().isBefore(from) && r.due().isBefore(to)).count();
      assertThat(inside).as("window %d", k).isEqualTo(Math.round(rates[k] * WINDOW.toSeconds()));
    }
  }

  @Test
  void seven_in_ten_rooms_empty_three_in_twenty_never_admitted_three_in_twenty_go_stale() {
    Map<String, Long> byPhase =
        plan().stream()
            .collect(Collectors.groupingBy(SchedulePlan.Room::phase, Collectors.counting()));
    double n = 1110;

    assertThat(byPhase.keySet())
        .containsExactlyInAnyOrder("empty-room", "provision-timeout", "stale-live");
    assertThat(byPhase.get("empty-room") / n).isBetween(0.65, 0.75);
    assertThat(byPhase.get("provision-timeout") / n).isBetween(0.11, 0.19);
    assertThat(byPhase.get("stale-live") / n).isBetween(0.11, 0.19);
  }

  @Test
  void a_participant_comes_back_only_to_an_emptied_room_within_its_grace() {
    List<SchedulePlan.Room> rooms = plan();
    List<SchedulePlan.Room> rejoined =
        rooms.stream().filter(r -> !r.rejoin().equals(Instant.MAX)).toList();

    assertThat(rejoined).isNotEmpty().allMatch(r -> r.phase().equals("empty-room"));
    long emptied = rooms.stream().filter(r -> r.phase().equals("empty-room")).count();
    assertThat((double) rejoined.size() / emptied).isBetween(0.15, 0.25);
    for (SchedulePlan.Room r : rejoined) {
      Instant emptiedAt = r.due().minus(GRACE);
      assertThat(r.rejoin()).isAfter(emptiedAt).isBefore(r.due());
    }
  }

  @Test
  void every_write_comes_one_window_before_its_room_falls_due_and_in_time_order() {
    List<SchedulePlan.Room> plan = plan();
    Duration shift = Duration.ofHours(5);
    List<SchedulePlan.Event> events = SchedulePlan.events(plan, shift);

    Map<java.util.UUID, SchedulePlan.Room> planned =
        plan.stream().collect(Collectors.toMap(SchedulePlan.Room::id, r -> r));
    for (SchedulePlan.Event e : events) {
      SchedulePlan.Room r = planned.get(e.room().id());
      Instant due = r.due().plus(shift);
      assertThat(e.room().due()).isEqualTo(due);
      switch (e.what()) {
        case "empty" -> assertThat(e.at().plus(GRACE)).isEqualTo(due);
        case "create" -> {
          assertThat(r.phase()).isEqualTo("provision-timeout");
          assertThat(e.at().plus(PROVISION)).isEqualTo(due);
        }
        case "rejoin" -> assertThat(e.at()).isEqualTo(r.rejoin().plus(shift));
        default -> throw new AssertionError("unexpected write " + e.what());
      }
    }
    assertThat(events)
        .extracting(SchedulePlan.Event::at)
        .isSortedAccordingTo(java.util.Comparator.naturalOrder());
    long empty = plan.stream().filter(r -> r.phase().equals("empty-room")).count();
    long provisioning = plan.stream().filter(r -> r.phase().equals("provision-timeout")).count();
    long rejoins = plan.stream().filter(r -> !r.rejoin().equals(Instant.MAX)).count();
    // Stale-live rooms get no write: their heartbeat is dated before the run.
    assertThat(events).hasSize((int) (empty + provisioning + rejoins));
  }
}
