package pin.messenger.reaper.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The schedule's arithmetic at the defaults (interval 30 s, coalesce 200 ms, min gap 1 s), with
 * every instant given: no clock, no sleep.
 */
class CycleScheduleTest {
  static final ConferenceRoomReaperOptions NEXT_DUE =
      ConferenceRoomReaperOptions.defaults().toBuilder().schedule(Schedule.NEXT_DUE).build();
  static final Instant START = Instant.parse("2026-12-02T10:00:00Z");
  static final Instant END = START.plusMillis(40);

  static DueTimes due(Map<Phase, Instant> earliest) {
    return due(earliest, PauseState.NONE, Duration.ZERO);
  }

  /** Read at END on the worker's clock; the database's clock is {@code skew} ahead. */
  static DueTimes due(Map<Phase, Instant> earliest, PauseState pauses, Duration skew) {
    return new DueTimes(
        earliest, pauses, new ClockReading(END.plus(skew), END, Duration.ofMillis(2)));
  }

  static Wakeup next(ConferenceRoomReaperOptions options, DueTimes due) {
    return new CycleSchedule(options).next(START, END, due);
  }

  @Test
  void wakes_for_the_earliest_due_phase_plus_the_coalescing_delay() {
    Wakeup w =
        next(
            NEXT_DUE,
            due(
                Map.of(
                    Phase.EMPTY_ROOM, START.plusSeconds(7),
                    Phase.PROVISION_TIMEOUT, START.plusSeconds(5),
                    Phase.STALE_LIVE, START.plusSeconds(3600))));

    assertThat(w.at()).isEqualTo(START.plusMillis(5_200));
    assertThat(w.reason()).isEqualTo("provision-timeout");
    assertThat(w.due()).isEqualTo(START.plusSeconds(5));
  }

  @Test
  void the_polling_interval_stays_the_longest_wait() {
    Wakeup w = next(NEXT_DUE, due(Map.of(Phase.STALE_LIVE, START.plusSeconds(3600))));

    assertThat(w.at()).isEqualTo(START.plusSeconds(30));
    assertThat(w.reason()).isEqualTo(Wakeup.TICK);
    assertThat(next(NEXT_DUE, due(Map.of())).at()).isEqualTo(START.plusSeconds(30));
    // Due just before the tick, but the coalescing delay would pass it: the tick.
    assertThat(next(NEXT_DUE, due(Map.of(Phase.EMPTY_ROOM, START.plusMillis(29_900)))).reason())
        .isEqualTo(Wakeup.TICK);
  }

  @Test
  void never_closer_to_the_previous_start_than_the_minimum_gap() {
    // Due already (a row this cycle could not take): not a busy loop, one start per min gap.
    Wakeup w = next(NEXT_DUE, due(Map.of(Phase.EMPTY_ROOM, START.minusSeconds(10))));

    assertThat(w.at()).isEqualTo(START.plusSeconds(1));
    assertThat(w.reason()).isEqualTo("empty-room");
  }

  @Test
  void a_minimum_gap_longer_than_the_polling_interval_is_cut_to_it() {
    ConferenceRoomReaperOptions fast =
        NEXT_DUE.toBuilder().pollingInterval(Duration.ofMillis(300)).build();

    Wakeup w = next(fast, due(Map.of(Phase.EMPTY_ROOM, START.minusSeconds(10))));

    assertThat(w.at()).isEqualTo(START.plusMillis(300));
  }

  @Test
  void never_before_the_cycle_ended() {
    Instant lateEnd = START.plusSeconds(45);
    Wakeup w =
        new CycleSchedule(NEXT_DUE)
            .next(START, lateEnd, due(Map.of(Phase.EMPTY_ROOM, START.plusSeconds(2))));
    assertThat(w.at()).isEqualTo(lateEnd);

    Wakeup fixed =
        new CycleSchedule(NEXT_DUE.toBuilder().schedule(Schedule.FIXED).build())
            .next(START, lateEnd, null);
    assertThat(fixed.at()).isEqualTo(lateEnd);
  }

  @Test
  void fixed_is_the_tick_whatever_falls_due() {
    ConferenceRoomReaperOptions fixed = NEXT_DUE.toBuilder().schedule(Schedule.FIXED).build();

    Wakeup w = next(fixed, due(Map.of(Phase.EMPTY_ROOM, START.plusSeconds(2))));

    assertThat(w.at()).isEqualTo(START.plusSeconds(30));
    assertThat(w.reason()).isEqualTo(Wakeup.TICK);
  }

  @Test
  void unknown_due_times_fall_back_to_the_tick() {
    assertThat(new CycleSchedule(NEXT_DUE).next(START, END, null).at())
        .isEqualTo(START.plusSeconds(30));
  }

  @Test
  void a_phase_paused_without_end_contributes_no_wakeup_and_one_with_an_end_from_its_end() {
    Map<Phase, Instant> earliest = new EnumMap<>(Phase.class);
    earliest.put(Phase.EMPTY_ROOM, START.plusSeconds(2));
    earliest.put(Phase.PROVISION_TIMEOUT, START.plusSeconds(9));
    PauseState emptyRoomPaused =
        new PauseState(List.of(new PauseState.Pause("empty-room", "incident", "ops", START, null)));

    Wakeup w = next(NEXT_DUE, due(earliest, emptyRoomPaused, Duration.ZERO));
    assertThat(w.reason()).isEqualTo("provision-timeout");
    assertThat(w.at()).isEqualTo(START.plusMillis(9_200));

    PauseState allUntil =
        new PauseState(
            List.of(new PauseState.Pause("all", "deploy", "ops", START, START.plusSeconds(20))));
    Wakeup until = next(NEXT_DUE, due(earliest, allUntil, Duration.ZERO));
    assertThat(until.at()).isEqualTo(START.plusMillis(20_200));

    PauseState expired =
        new PauseState(
            List.of(
                new PauseState.Pause("empty-room", "old", "ops", START, START.minusSeconds(1))));
    assertThat(next(NEXT_DUE, due(earliest, expired, Duration.ZERO)).reason())
        .isEqualTo("empty-room");
  }

  @Test
  void every_phase_paused_leaves_the_tick() {
    PauseState all =
        new PauseState(List.of(new PauseState.Pause("all", "incident", "ops", START, null)));

    Wakeup w =
        next(NEXT_DUE, due(Map.of(Phase.EMPTY_ROOM, START.plusSeconds(2)), all, Duration.ZERO));

    assertThat(w.reason()).isEqualTo(Wakeup.TICK);
    assertThat(w.at()).isEqualTo(START.plusSeconds(30));
  }

  @Test
  void under_the_database_clock_the_wait_is_shifted_by_the_measured_skew() {
    ConferenceRoomReaperOptions database = NEXT_DUE.toBuilder().clock(ClockSource.DATABASE).build();
    // The database is 3 s ahead of the worker: a row due at database time T is due at worker time
    // T - 3 s.
    DueTimes due =
        due(
            Map.of(Phase.EMPTY_ROOM, START.plusSeconds(10)),
            PauseState.NONE,
            Duration.ofSeconds(3));

    Wakeup w = next(database, due);
    assertThat(w.at()).isEqualTo(START.plusMillis(7_200));
    assertThat(w.due()).isEqualTo(START.plusSeconds(7));

    // Under the system clock the rows' timestamps are compared with the worker's clock as they are.
    assertThat(next(NEXT_DUE, due).at()).isEqualTo(START.plusMillis(10_200));
  }

  @Test
  void a_database_clock_pause_end_is_judged_and_shifted_on_the_database_clock() {
    ConferenceRoomReaperOptions database = NEXT_DUE.toBuilder().clock(ClockSource.DATABASE).build();
    // Worker END = 10:00:00.040; database 60 s ahead. A pause until database 10:00:30 is still on
    // by the database's clock although the worker's clock has not reached it either way; one until
    // 10:00:50 on the database clock is over (database now is 10:01:00.040).
    PauseState over =
        new PauseState(
            List.of(new PauseState.Pause("empty-room", "x", "ops", START, START.plusSeconds(50))));
    DueTimes due =
        due(Map.of(Phase.EMPTY_ROOM, START.plusSeconds(65)), over, Duration.ofSeconds(60));

    Wakeup w = next(database, due);
    assertThat(w.reason()).isEqualTo("empty-room");
    assertThat(w.at()).isEqualTo(START.plusMillis(5_200));
  }
}
