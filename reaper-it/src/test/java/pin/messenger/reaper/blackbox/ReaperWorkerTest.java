package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The harness reads one event per cycle from a worker's log, whatever the cycle did: the figures of
 * the black-box scenarios and their "n more cycles" waits count these events. The lines are the
 * worker's own (ECS JSON, as {@code run} prints them), shortened to the fields the harness reads.
 */
class ReaperWorkerTest {

  private static final String JOB = "\"jobRunId\":\"3f0c2a4e-8f7b-4d5e-9a61-0d2b7c9e1a11\"";

  private static String line(String time, String message, String fields) {
    return "{\"@timestamp\":\"2026-03-02T10:15:"
        + time
        + "Z\",\"log\":{\"level\":\"INFO\",\"logger\":\"pin.messenger.reaper.core.ConferenceRoomReaper\"},"
        + "\"message\":\""
        + message
        + "\","
        + JOB
        + fields
        + ",\"ecs\":{\"version\":\"8.11\"}}";
  }

  private static List<ReaperWorker.CycleEvent> events(String... lines) {
    return List.of(lines).stream()
        .map(l -> ReaperWorker.parse(0, l))
        .filter(Objects::nonNull)
        .toList();
  }

  private static final String STARTED =
      line("01.000", "cycle started", ",\"asOf\":\"2026-03-02T10:15:01Z\",\"dryRun\":false");

  private static String completed(boolean lockAcquired, long closed) {
    return line(
        "01.042",
        "cycle completed",
        ",\"lockAcquired\":"
            + lockAcquired
            + ",\"emptyTimeout\":"
            + closed
            + ",\"provisionFailed\":0,\"staleTimeout\":0,\"skippedLocked\":0,\"failed\":0"
            + ",\"raceLost\":0,\"durationMs\":42,\"dryRun\":false,\"pausedPhases\":0");
  }

  @Test
  void a_cycle_that_finds_the_lock_held_is_one_skipped_event() {
    List<ReaperWorker.CycleEvent> events =
        events(
            STARTED,
            line("01.040", "cycle skipped: run lock held by another runner", ""),
            completed(false, 0));

    assertThat(events).hasSize(1);
    ReaperWorker.CycleEvent e = events.get(0);
    assertThat(e.completed()).isTrue();
    assertThat(e.skipped()).isTrue();
    assertThat(e.lockAcquired()).isFalse();
    assertThat(e.startedAt()).isEqualTo(java.time.Instant.parse("2026-03-02T10:15:01Z"));
  }

  @Test
  void a_cycle_with_the_lock_is_one_completed_event_with_what_it_closed() {
    List<ReaperWorker.CycleEvent> events = events(STARTED, completed(true, 7));

    assertThat(events).hasSize(1);
    assertThat(events.get(0).skipped()).isFalse();
    assertThat(events.get(0).closed()).isEqualTo(7);
  }

  @Test
  void a_failed_cycle_is_one_failed_event() {
    List<ReaperWorker.CycleEvent> events =
        events(
            STARTED,
            line(
                "02.000",
                "cycle failed; the batch was rolled back and the next cycle retries",
                ",\"error\":{\"message\":\"connection refused\"}"));

    assertThat(events).singleElement().satisfies(e -> assertThat(e.completed()).isFalse());
    assertThat(events.get(0).skipped()).isFalse();
  }
}
