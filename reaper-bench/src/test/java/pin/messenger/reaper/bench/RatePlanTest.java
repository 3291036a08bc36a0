package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;

/**
 * The rate section's plan: as many rooms as rate × window, due at a steady rate inside the window,
 * the stated mix, and each room's reference time one phase window before its due instant and before
 * the window opens (so the rooms can be written before it).
 */
class RatePlanTest {
  static final ConferenceRoomReaperOptions OPTIONS = ConferenceRoomReaperOptions.defaults();
  static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  static final Duration WINDOW = Duration.ofSeconds(60);

  @Test
  void ten_a_second_for_a_minute_is_600_rooms_a_tenth_of_a_second_apart_inside_the_window() {
    List<RatePlan.Room> rooms = RatePlan.plan(10, WINDOW, START, OPTIONS);

    assertThat(rooms).hasSize(600);
    for (int i = 0; i < rooms.size(); i++) {
      Instant due = rooms.get(i).due();
      assertThat(due).isAfterOrEqualTo(START).isBefore(START.plus(WINDOW));
      if (i > 0) {
        assertThat(Duration.between(rooms.get(i - 1).due(), due)).isEqualTo(Duration.ofMillis(100));
      }
    }
  }

  @Test
  void half_go_stale_seven_in_twenty_empty_three_in_twenty_never_admitted() {
    Map<Phase, Long> byPhase =
        RatePlan.plan(1, WINDOW, START, OPTIONS).stream()
            .collect(Collectors.groupingBy(RatePlan.Room::phase, Collectors.counting()));

    assertThat(byPhase)
        .containsEntry(Phase.STALE_LIVE, 30L)
        .containsEntry(Phase.EMPTY_ROOM, 21L)
        .containsEntry(Phase.PROVISION_TIMEOUT, 9L);
  }

  @Test
  void each_room_is_due_one_phase_window_after_its_reference_time_which_is_before_the_start() {
    for (RatePlan.Room room : RatePlan.plan(10, WINDOW, START, OPTIONS)) {
      assertThat(room.reference().plus(room.phase().window(OPTIONS))).isEqualTo(room.due());
      assertThat(room.reference()).isBefore(START);
    }
  }

  @Test
  void a_window_longer_than_the_shortest_phase_window_is_refused_naming_the_option() {
    assertThatThrownBy(() -> RatePlan.plan(1, Duration.ofSeconds(91), START, OPTIONS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--rate-seconds");
  }
}
