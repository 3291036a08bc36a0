package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Reading the worker's JSON log lines back: events, counts and time stamps. */
class WorkerLogTest {
  static final String COMPLETED =
      "{\"@timestamp\":\"2026-12-06T10:00:01.250Z\",\"log.level\":\"INFO\",\"message\":\"cycle"
          + " completed\",\"cycleId\":\"c1\",\"durationMs\":42,\"emptyTimeout\":100,"
          + "\"provisionFailed\":7,\"staleTimeout\":3,\"poisoned\":0}";

  @Test
  void a_line_is_of_the_event_its_message_field_names() {
    assertThat(COMPLETED).contains(WorkerLog.CYCLE_COMPLETED);
    assertThat(COMPLETED).doesNotContain(WorkerLog.CYCLE_STARTED);
    assertThat("{\"message\":\"conference reaped\",\"id\":\"x\"}")
        .contains(WorkerLog.CONFERENCE_REAPED);
    // The text alone, elsewhere than in the message, is not the event.
    assertThat("{\"message\":\"lock\",\"note\":\"cycle completed\"}")
        .doesNotContain(WorkerLog.CYCLE_COMPLETED);
  }

  @Test
  void a_field_is_read_by_its_exact_name_and_an_absent_one_is_zero() {
    assertThat(WorkerLog.field(COMPLETED, "durationMs")).isEqualTo(42);
    assertThat(WorkerLog.field(COMPLETED, "emptyTimeout")).isEqualTo(100);
    assertThat(WorkerLog.field(COMPLETED, "Timeout")).isZero();
    assertThat(WorkerLog.field(COMPLETED, "recorded")).isZero();
  }

  @Test
  void closed_counts_the_three_phases_and_not_the_poisoned_rows() {
    assertThat(WorkerLog.closed(COMPLETED)).isEqualTo(110);
    assertThat(WorkerLog.closed("{\"message\":\"cycle completed\",\"durationMs\":3}")).isZero();
  }

  @Test
  void the_time_stamp_is_when_the_line_was_logged() {
    assertThat(WorkerLog.timestamp(COMPLETED)).contains(Instant.parse("2026-12-06T10:00:01.250Z"));
    assertThat(WorkerLog.timestamp("not json")).isEmpty();
  }
}
