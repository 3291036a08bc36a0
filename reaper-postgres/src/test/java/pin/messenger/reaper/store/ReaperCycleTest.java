package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.testing.ContractSchema;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * The spec's Tests table, row by row, against a real PostgreSQL (JVM and sessions in a non-UTC
 * zone).
 */
class ReaperCycleTest extends DatabaseTest {

  final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();
  final List<ConferenceEndedEvent> dispatched = new CopyOnWriteArrayList<>();
  ConferenceRoomReaper reaper;
  final Instant asOf = Instant.parse("2026-12-02T10:00:00.123456Z");

  @BeforeEach
  void clean() {
    reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            options,
            ReaperObserver.NONE,
            List.of(dispatched::add));
  }

  CycleResult cycle(Instant at) {
    return reaper.runOnce(at, Cancellation.NONE);
  }

  long outboxRows() {
    return rooms.count("SELECT count(*) FROM messenger.integration_outbox");
  }

  long realtimeRows() {
    return rooms.count("SELECT count(*) FROM messenger.realtime_outbox");
  }

  @Test
  void session_time_zone_is_not_utc_so_the_tests_prove_zone_independence() {
    assertThat(rooms.query("SHOW TimeZone").get(0).get("TimeZone"))
        .isNotEqualTo("UTC")
        .isNotEqualTo("Etc/UTC");
  }

  @Test
  void empty_batch_is_a_noop_success_without_mutations_or_events() {
    rooms.insert(Rooms.occupied(asOf.minusSeconds(5), 3));
    rooms.insert(Rooms.emptyActive(asOf.minusSeconds(30)));
    rooms.insert(Rooms.ended(asOf.minus(Duration.ofDays(3))));
    List<Map<String, Object>> before =
        rooms.query("SELECT * FROM messenger.conference_sessions ORDER BY id");

    CycleResult result = cycle(asOf);

    assertThat(result.lockAcquired()).isTrue();
    assertThat(result.reaped()).isZero();
    assertThat(result.poisoned()).isZero();
    // Only the reaper's own mark was written: the rows the messenger inserted are armed, each from
    // its reference time.
    List<Map<String, Object>> after =
        rooms.query("SELECT * FROM messenger.conference_sessions ORDER BY id");
    assertThat(withoutDeadline(after)).isEqualTo(withoutDeadline(before));
    assertThat(after)
        .filteredOn(r -> !"Ended".equals(r.get("status")))
        .allSatisfy(
            r ->
                assertThat((Instant) r.get("reaper_window_start"))
                    .isEqualTo(
                        r.get(
                            "Active".equals(r.get("status")) ? "last_activity_at" : "created_at")));
    assertThat(outboxRows()).isZero();
    assertThat(realtimeRows()).isZero();
    assertThat(dispatched).isEmpty();

    // Armed, an idle cycle writes nothing at all.
    assertThat(cycle(asOf).reaped()).isZero();
    assertThat(rooms.query("SELECT * FROM messenger.conference_sessions ORDER BY id"))
        .isEqualTo(after);
  }

  private static List<Map<String, Object>> withoutDeadline(List<Map<String, Object>> rows) {
    return rows.stream()
        .map(
            r -> {
              Map<String, Object> copy = new java.util.HashMap<>(r);
              copy.remove("reaper_window_start");
              return copy;
            })
        .toList();
  }

  @Test
  void
      empty_room_past_grace_ends_with_empty_timeout_and_writes_conference_ended_and_realtime_rows() {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(91)));
    UUID alice = UUID.randomUUID();
    UUID bob = UUID.randomUUID();
    rooms.join(room.id, alice, room.startedAt);
    rooms.join(room.id, bob, room.startedAt.plusSeconds(5));
    rooms.join(
        room.id, alice, room.startedAt.plusSeconds(60)); // re-join: one participant entry per user

    CycleResult result = cycle(asOf);

    assertThat(result.emptyTimeout()).isEqualTo(1);
    Map<String, Object> row = rooms.row(room.id);
    assertThat(row.get("status")).isEqualTo("Ended");
    assertThat(row.get("end_reason")).isEqualTo("EmptyTimeout");
    assertThat(row.get("ended_at")).isEqualTo(asOf.truncatedTo(ChronoUnit.MICROS));
    assertThat(row.get("updated_at")).isEqualTo(asOf.truncatedTo(ChronoUnit.MICROS));
    long expectedDuration = Duration.between(room.startedAt, asOf).getSeconds();
    assertThat(row.get("duration_seconds")).isEqualTo(expectedDuration);

    Map<String, Object> outbox = rooms.query("SELECT * FROM messenger.integration_outbox").get(0);
    assertThat(outbox.get("topic")).isEqualTo("pin.messenger.conference-ended.v1");
    assertThat(outbox.get("message_key")).isEqualTo(room.dealId.toString());
    assertThat(outbox.get("event_type")).isEqualTo("conference-ended.v1");
    assertThat(outbox.get("correlation_id")).isEqualTo(result.jobRunId());
    assertThat(outbox.get("published_at")).isNull();
    String payload = outbox.get("payload").toString();
    ContractSchema.assertValid(payload);
    assertThat((String) JsonPath.read(payload, "$.conferenceId")).isEqualTo(room.id.toString());
    assertThat((String) JsonPath.read(payload, "$.dealId")).isEqualTo(room.dealId.toString());
    assertThat((String) JsonPath.read(payload, "$.status")).isEqualTo("Ended");
    assertThat((String) JsonPath.read(payload, "$.endReason")).isEqualTo("EmptyTimeout");
    assertThat((String) JsonPath.read(payload, "$.endedAt"))
        .isEqualTo("2026-12-02T10:00:00.123456Z");
    assertThat(((Number) JsonPath.read(payload, "$.durationSeconds")).longValue())
        .isEqualTo(expectedDuration);
    assertThat((List<String>) JsonPath.read(payload, "$.participants[*].userId"))
        .containsExactly(alice.toString(), bob.toString());
    assertThat((Boolean) JsonPath.read(payload, "$.wasRecorded")).isFalse();
    assertThat((Object) JsonPath.read(payload, "$.recordingId")).isNull();

    Map<String, Object> realtime = rooms.query("SELECT * FROM messenger.realtime_outbox").get(0);
    assertThat(realtime.get("kind")).isEqualTo("ConferenceEnded");
    assertThat(realtime.get("target_kind")).isEqualTo("ChatGroup");
    assertThat(realtime.get("chat_id")).isEqualTo(room.chatId);
    assertThat(realtime.get("session_kind")).isEqualTo("Conference");
    assertThat(realtime.get("conference_id")).isEqualTo(room.id);
    assertThat(dispatched).extracting(ConferenceEndedEvent::conferenceId).containsExactly(room.id);
  }

  @Test
  void empty_room_exactly_at_the_grace_boundary_is_closed_and_one_microsecond_younger_is_not() {
    Room due = rooms.insert(Rooms.emptyActive(asOf.minus(options.emptyRoomGrace())));
    Room young =
        rooms.insert(
            Rooms.emptyActive(asOf.minus(options.emptyRoomGrace()).plus(1, ChronoUnit.MICROS)));

    cycle(asOf.truncatedTo(ChronoUnit.MICROS));

    assertThat(rooms.status(due.id)).isEqualTo("Ended");
    assertThat(rooms.status(young.id)).isEqualTo("Active");
  }

  @Test
  void someone_joined_within_grace_so_the_room_is_outside_the_empty_room_selection() {
    Room room = Rooms.emptyActive(asOf.minusSeconds(200));
    room.activeParticipants = 1; // a join committed before the tick
    rooms.insert(room);

    CycleResult result = cycle(asOf);

    assertThat(result.reaped()).isZero();
    assertThat(rooms.status(room.id)).isEqualTo("Active");
    assertThat(outboxRows()).isZero();
  }

  @Test
  void provisioning_room_past_timeout_fails_with_error_and_without_conference_ended() {
    Room room = rooms.insert(Rooms.provisioning(asOf.minus(Duration.ofMinutes(2)).minusMillis(1)));
    Room fresh = rooms.insert(Rooms.provisioning(asOf.minusSeconds(100)));

    CycleResult result = cycle(asOf);

    assertThat(result.provisionFailed()).isEqualTo(1);
    Map<String, Object> row = rooms.row(room.id);
    assertThat(row.get("status")).isEqualTo("Failed");
    assertThat(row.get("end_reason")).isEqualTo("Error");
    assertThat(row.get("ended_at")).isEqualTo(asOf.truncatedTo(ChronoUnit.MICROS));
    assertThat(row.get("started_at")).isNull();
    assertThat(row.get("duration_seconds")).isNull();
    assertThat(outboxRows()).isZero();
    assertThat(dispatched).isEmpty();
    assertThat(rooms.query("SELECT kind, conference_id FROM messenger.realtime_outbox"))
        .containsExactly(Map.of("kind", "ConferenceFailed", "conference_id", room.id));
    assertThat(rooms.status(fresh.id)).isEqualTo("Provisioning");
  }

  @Test
  void stale_live_room_without_presence_past_timeout_ends_with_timeout_and_publishes_the_event() {
    Room stale = rooms.insert(Rooms.occupied(asOf.minus(Duration.ofHours(4)).minusSeconds(1), 2));
    Room alive = rooms.insert(Rooms.occupied(asOf.minus(Duration.ofHours(3)), 2));

    CycleResult result = cycle(asOf);

    assertThat(result.staleTimeout()).isEqualTo(1);
    assertThat(rooms.row(stale.id))
        .containsEntry("status", "Ended")
        .containsEntry("end_reason", "Timeout");
    assertThat(rooms.status(alive.id)).isEqualTo("Active");
    String payload =
        rooms
            .query("SELECT payload FROM messenger.integration_outbox")
            .get(0)
            .get("payload")
            .toString();
    ContractSchema.assertValid(payload);
    assertThat((String) JsonPath.read(payload, "$.endReason")).isEqualTo("Timeout");
    assertThat(realtimeRows()).isEqualTo(1);
    assertThat(dispatched).hasSize(1);
  }

  @Test
  void
      closing_conference_with_an_active_recording_writes_a_recorder_stop_request_and_marks_was_recorded() {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    UUID old = rooms.recording(room.id, "Ready", room.startedAt);
    UUID live = rooms.recording(room.id, "Recording", room.startedAt.plusSeconds(30));

    cycle(asOf);

    assertThat(
            rooms.query(
                "SELECT recording_id, conference_id, reason, delivered_at FROM messenger.recorder_stop_requests"))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.get("recording_id")).isEqualTo(live);
              assertThat(r.get("conference_id")).isEqualTo(room.id);
              assertThat(r.get("reason")).isEqualTo("EmptyTimeout");
              assertThat(r.get("delivered_at")).isNull();
            });
    String payload =
        rooms
            .query("SELECT payload FROM messenger.integration_outbox")
            .get(0)
            .get("payload")
            .toString();
    ContractSchema.assertValid(payload);
    assertThat((Boolean) JsonPath.read(payload, "$.wasRecorded")).isTrue();
    assertThat((String) JsonPath.read(payload, "$.recordingId")).isEqualTo(live.toString());
  }

  @Test
  void finished_recordings_get_no_stop_request() {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    rooms.recording(room.id, "Ready", room.startedAt);
    rooms.recording(room.id, "Failed", room.startedAt.plusSeconds(1));

    cycle(asOf);

    assertThat(rooms.count("SELECT count(*) FROM messenger.recorder_stop_requests")).isZero();
    assertThat(rooms.status(room.id)).isEqualTo("Ended");
  }

  @Test
  void repeated_cycle_over_already_terminal_conferences_is_a_noop_without_a_second_event() {
    Room empty = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    Room prov = rooms.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    cycle(asOf);
    Map<String, Object> afterFirst = rooms.row(empty.id);

    CycleResult second = cycle(asOf.plusSeconds(30));

    assertThat(second.reaped()).isZero();
    assertThat(rooms.row(empty.id)).isEqualTo(afterFirst);
    assertThat(rooms.status(prov.id)).isEqualTo("Failed");
    assertThat(outboxRows()).isEqualTo(1);
    assertThat(realtimeRows()).isEqualTo(2);
    assertThat(dispatched).hasSize(1);
  }

  @Test
  void end_conference_before_the_tick_puts_the_session_outside_the_selection() {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    rooms.exec(
        "UPDATE messenger.conference_sessions SET status = 'Ended', end_reason = 'Completed', ended_at = ? WHERE id = ?",
        Rooms.ts(asOf.minusSeconds(1)),
        room.id);

    CycleResult result = cycle(asOf);

    assertThat(result.reaped()).isZero();
    assertThat(rooms.row(room.id)).containsEntry("end_reason", "Completed");
    assertThat(outboxRows()).isZero();
  }

  @Test
  void a_room_in_two_phases_is_closed_once_by_the_first_phase() {
    // Empty for longer than the stale-live timeout too: empty-room runs first and takes it.
    Room room = rooms.insert(Rooms.emptyActive(asOf.minus(Duration.ofHours(5))));

    CycleResult result = cycle(asOf);

    assertThat(result.emptyTimeout()).isEqualTo(1);
    assertThat(result.staleTimeout()).isZero();
    assertThat(rooms.row(room.id)).containsEntry("end_reason", "EmptyTimeout");
    assertThat(outboxRows()).isEqualTo(1);
  }

  @Test
  void batch_size_plus_one_due_rooms_take_two_cycles_oldest_first() {
    ConferenceRoomReaperOptions small = options.toBuilder().batchSize(3).build();
    reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()), small, ReaperObserver.NONE, List.of());
    Room newest = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(100)));
    for (int i = 0; i < 3; i++) {
      rooms.insert(Rooms.emptyActive(asOf.minusSeconds(200 + i)));
    }

    CycleResult first = cycle(asOf);

    assertThat(first.emptyTimeout()).isEqualTo(3);
    assertThat(rooms.status(newest.id)).isEqualTo("Active");
    CycleResult second = cycle(asOf.plusSeconds(30));
    assertThat(second.emptyTimeout()).isEqualTo(1);
    assertThat(rooms.status(newest.id)).isEqualTo("Ended");
  }

  @Test
  void drain_mode_keeps_claiming_full_batches_within_one_cycle() {
    ConferenceRoomReaperOptions drain =
        options.toBuilder().batchSize(3).drainEnabled(true).drainPause(Duration.ZERO).build();
    reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()), drain, ReaperObserver.NONE, List.of());
    for (int i = 0; i < 10; i++) {
      rooms.insert(Rooms.emptyActive(asOf.minusSeconds(200 + i)));
    }

    CycleResult result = cycle(asOf);

    assertThat(result.emptyTimeout()).isEqualTo(10);
    assertThat(outboxRows()).isEqualTo(10);
  }

  @Test
  void
      slo_precision_an_empty_room_is_closed_no_later_than_last_activity_plus_grace_plus_interval() {
    // Ticks on a fixed grid that is out of phase with the room's window: the worst case for
    // lateness.
    Instant lastActivity = asOf;
    Room room = rooms.insert(Rooms.emptyActive(lastActivity));
    Instant tick = lastActivity.plusMillis(7);
    Instant closedAt = null;
    for (int i = 0; i < 10 && closedAt == null; i++) {
      cycle(tick);
      if (rooms.status(room.id).equals("Ended")) {
        closedAt = (Instant) rooms.row(room.id).get("ended_at");
      }
      tick = tick.plus(options.pollingInterval());
    }
    assertThat(closedAt).isNotNull();
    assertThat(closedAt).isAfterOrEqualTo(lastActivity.plus(options.emptyRoomGrace()));
    assertThat(closedAt)
        .isBeforeOrEqualTo(
            lastActivity.plus(options.emptyRoomGrace()).plus(options.pollingInterval()));
  }

  @Test
  void dry_run_reports_what_would_happen_and_changes_nothing() {
    rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    rooms.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    List<Map<String, Object>> before =
        rooms.query("SELECT * FROM messenger.conference_sessions ORDER BY id");

    CycleResult result = reaper.dryRun(asOf);

    assertThat(result.dryRun()).isTrue();
    assertThat(result.emptyTimeout()).isEqualTo(1);
    assertThat(result.provisionFailed()).isEqualTo(1);
    assertThat(rooms.query("SELECT * FROM messenger.conference_sessions ORDER BY id"))
        .isEqualTo(before);
    assertThat(outboxRows() + realtimeRows()).isZero();
    assertThat(dispatched).isEmpty();
  }

  @Test
  void a_failing_conference_ended_listener_never_undoes_the_commit() {
    reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            options,
            ReaperObserver.NONE,
            List.of(
                e -> {
                  throw new IllegalStateException("listener down");
                },
                dispatched::add));
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));

    CycleResult result = cycle(asOf);

    assertThat(result.emptyTimeout()).isEqualTo(1);
    assertThat(rooms.status(room.id)).isEqualTo("Ended");
    assertThat(outboxRows()).isEqualTo(1);
    assertThat(dispatched).hasSize(1); // the next listener still got it
  }
}
