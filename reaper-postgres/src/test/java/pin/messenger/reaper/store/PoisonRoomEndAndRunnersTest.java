package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ManualEnd;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.OperatorActions.AuditFilter;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Request;
import pin.messenger.reaper.store.OperatorActions.Result;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * On the real schema: a poison row's bounded error history, {@code end} closing a room as the
 * reaper's phase would (and refusing or asking when it would not), the audit trail's ids, role and
 * filters, and the runners' table.
 */
class PoisonRoomEndAndRunnersTest extends DatabaseTest {
  final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();
  final Instant asOf = Instant.parse("2026-12-02T10:00:00Z");

  Request end(UUID id, Instant at) {
    return new Request(
        OperatorAction.END,
        "alice",
        at,
        "poison room",
        Map.of("conferenceId", id.toString(), "correlationId", "operator-end-test"),
        true);
  }

  Room poison() {
    Room r = Rooms.emptyActive(asOf.minusSeconds(600));
    r.startedAt = null;
    return rooms.insert(r);
  }

  @Test
  void a_poison_row_keeps_its_last_five_errors_newest_first_and_explain_shows_them()
      throws Exception {
    Room room = poison();
    ConferenceRoomReaper reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()), options, ReaperObserver.NONE, List.of());
    Instant t = asOf;
    for (int i = 0; i < 7; i++) {
      reaper.runOnce(t, Cancellation.NONE);
      t = t.plus(Duration.ofMinutes(20)); // past the backoff cap (15 min)
    }

    Explanation.Explained explained = new Explanation(db.dataSource()).explain(room.id, t, options);

    List<?> history = explained.errorHistory();
    assertThat(history).hasSize(PoisonIsolation.ERROR_HISTORY);
    assertThat(((Map<?, ?>) history.get(0)).get("attempt")).isEqualTo(7);
    assertThat(((Map<?, ?>) history.get(4)).get("attempt")).isEqualTo(3);
    assertThat((String) ((Map<?, ?>) history.get(0)).get("error")).contains("started_at is null");
    assertThat(((Map<?, ?>) history.get(0)).get("at"))
        .isEqualTo(asOf.plus(Duration.ofMinutes(120)).toString());
    assertThat(explained.session().containsKey("reaper_error_history")).isFalse();
  }

  @Test
  void end_of_a_meeting_without_started_at_asks_for_a_choice_then_closes_without_event_audited()
      throws Exception {
    Room room = poison();
    UUID recording = rooms.recording(room.id, "Recording", asOf.minusSeconds(500));
    OperatorEnd ends = new OperatorEnd(db.dataSource());

    Outcome asked = ends.end(end(room.id, asOf), room.id, ManualEnd.Choice.NONE, options);
    assertThat(asked.result()).isEqualTo(Result.PLAN_ONLY);
    assertThat(asked.message()).contains("started_at is null").contains("--without-event");
    assertThat(rooms.status(room.id)).isEqualTo("Active");
    assertThat(rooms.count("SELECT count(*) FROM messenger.conference_reaper_audit")).isZero();

    Outcome closed =
        ends.end(end(room.id, asOf), room.id, new ManualEnd.Choice(null, true), options);

    assertThat(closed.result()).isEqualTo(Result.APPLIED);
    Map<String, Object> row = rooms.row(room.id);
    assertThat(row.get("status")).isEqualTo("Ended");
    assertThat(row.get("end_reason")).isEqualTo("EmptyTimeout");
    assertThat(row.get("duration_seconds")).isNull();
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isZero();
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.realtime_outbox WHERE conference_id = ? AND kind = 'ConferenceEnded'",
                room.id))
        .isEqualTo(1);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.recorder_stop_requests WHERE recording_id = ?",
                recording))
        .isEqualTo(1);
    List<Map<String, Object>> audit =
        new OperatorActions(db.dataSource())
            .recent(new AuditFilter(OperatorAction.END, "alice", null, 10));
    assertThat(audit).hasSize(1);
    @SuppressWarnings("unchecked")
    List<String> ids = (List<String>) audit.get(0).get("ids");
    assertThat(ids).contains(room.id.toString()).hasSize(3);
    assertThat(audit.get(0).get("db_role")).isNotNull();
    assertThat(
            new OperatorActions(db.dataSource())
                .recent(new AuditFilter(OperatorAction.PAUSE, null, null, 10)))
        .isEmpty();
    assertThat(
            new OperatorActions(db.dataSource())
                .recent(new AuditFilter(null, null, Instant.now().plusSeconds(3600), 10)))
        .isEmpty();

    Outcome again = ends.end(end(room.id, asOf), room.id, ManualEnd.Choice.NONE, options);
    assertThat(again.result()).isEqualTo(Result.NOTHING);
    assertThat(again.message()).contains("already Ended");
  }

  @Test
  void end_with_an_asserted_start_publishes_the_event_with_its_duration() throws Exception {
    Room room = poison();
    Instant start = asOf.minusSeconds(900);

    Outcome closed =
        new OperatorEnd(db.dataSource())
            .end(end(room.id, asOf), room.id, new ManualEnd.Choice(start, false), options);

    assertThat(closed.result()).isEqualTo(Result.APPLIED);
    assertThat(rooms.row(room.id).get("duration_seconds")).isEqualTo(900L);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE correlation_id = 'operator-end-test'"
                    + " AND payload->>'startedAt' IS NOT NULL"))
        .isEqualTo(1);
  }

  @Test
  void end_refuses_a_live_room_no_phase_would_close_and_an_unknown_one() throws Exception {
    Room live = rooms.insert(Rooms.occupied(asOf.minusSeconds(10), 3));
    OperatorEnd ends = new OperatorEnd(db.dataSource());

    Outcome refused = ends.end(end(live.id, asOf), live.id, ManualEnd.Choice.NONE, options);
    assertThat(refused.result()).isEqualTo(Result.NOTHING);
    assertThat(refused.message()).contains("no phase would close it now");
    assertThat(rooms.status(live.id)).isEqualTo("Active");

    UUID unknown = UUID.randomUUID();
    assertThat(ends.end(end(unknown, asOf), unknown, ManualEnd.Choice.NONE, options).message())
        .contains("no conference");
  }

  @Test
  void runners_are_listed_live_or_silent_and_long_gone_ones_are_deleted() throws Exception {
    Runners runners = new Runners(db.dataSource());
    Instant now = Instant.now();
    runners.refresh(row("a", Duration.ofMinutes(5), null), Duration.ofDays(1));
    runners.refresh(row("b", Duration.ofMillis(1), null), Duration.ofDays(1));
    runners.refresh(row("c", Duration.ofMinutes(5), now), Duration.ofDays(1));
    rooms.exec(
        "INSERT INTO messenger.conference_reaper_runners (instance_id, host, version, started_at,"
            + " last_seen_at, silent_after_ms) VALUES ('old', 'h', 'v', now(), now() - interval '2 days', 1000)");
    Thread.sleep(20);

    List<Runners.Runner> listed;
    try (var c = db.dataSource().getConnection()) {
      listed = Runners.list(c);
    }
    assertThat(listed)
        .extracting(r -> r.instanceId() + "=" + r.state())
        .containsExactly("a=live", "b=silent", "old=silent", "c=stopped");
    assertThat(runners.count()).isEqualTo(new Runners.Count(1, 2));

    runners.refresh(row("a", Duration.ofMinutes(5), null), Duration.ofDays(1));
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.conference_reaper_runners WHERE instance_id = 'old'"))
        .isZero();
  }

  static Runners.Row row(String id, Duration silentAfter, Instant stoppedAt) {
    return new Runners.Row(
        id,
        "host-" + id,
        42L,
        "test",
        Instant.now(),
        silentAfter,
        "cycle-1",
        Instant.now(),
        Instant.now(),
        true,
        List.of("stale-live"),
        stoppedAt);
  }
}
