package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Request;
import pin.messenger.reaper.store.OperatorActions.Result;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * Operator actions on the real schema: pauses obeyed by the cycle (per phase, whole, ending by
 * themselves), retry and requeue changing exactly the rows they printed, and an audit row with
 * every change and none without one.
 */
class OperatorActionsTest extends DatabaseTest {
  final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();
  final Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
  final List<Set<Phase>> pausesRead = new CopyOnWriteArrayList<>();
  OperatorActions actions;
  ConferenceRoomReaper reaper;

  @BeforeEach
  void setUp() {
    actions = new OperatorActions(db.dataSource());
    ReaperObserver observer =
        new ReaperObserver() {
          @Override
          public void pausesRead(String jobRunId, Set<Phase> paused) {
            pausesRead.add(paused);
          }
        };
    reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()), options, observer, List.of());
  }

  Request request(OperatorAction action, boolean confirmed) {
    return new Request(action, "alice", asOf, "test", Map.of("k", "v"), confirmed);
  }

  long auditRows() {
    return rooms.count("SELECT count(*) FROM messenger.conference_reaper_audit");
  }

  @Test
  void paused_phase_is_skipped_by_the_next_cycle_while_the_others_run_and_resume_lifts_it()
      throws Exception {
    Room provisioning = rooms.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    Room empty = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(600)));
    Outcome paused =
        actions.pause(request(OperatorAction.PAUSE, false), Phase.PROVISION_TIMEOUT.label(), null);
    assertThat(paused.result()).isEqualTo(Result.APPLIED);

    CycleResult during = reaper.runOnce(asOf, Cancellation.NONE);

    assertThat(during.provisionFailed()).isZero();
    assertThat(during.emptyTimeout()).isEqualTo(1);
    assertThat(during.pausedPhases()).isEqualTo(1);
    assertThat(pausesRead).last().isEqualTo(Set.of(Phase.PROVISION_TIMEOUT));
    assertThat(rooms.status(provisioning.id)).isEqualTo("Provisioning");
    assertThat(rooms.status(empty.id)).isEqualTo("Ended");

    Outcome resumed = actions.resume(request(OperatorAction.RESUME, false), null);
    assertThat(resumed.result()).isEqualTo(Result.APPLIED);
    CycleResult after = reaper.runOnce(asOf.plusSeconds(1), Cancellation.NONE);
    assertThat(after.provisionFailed()).isEqualTo(1);
    assertThat(after.pausedPhases()).isZero();
    assertThat(pausesRead).last().isEqualTo(Set.of());
    assertThat(auditRows()).isEqualTo(2);
  }

  @Test
  void pause_committed_mid_cycle_stops_the_phase_at_its_next_batch_and_the_cycle_counts_it()
      throws Exception {
    // The pause lands after the cycle read its pauses (at its run lock): once the empty-room
    // phase's batch has committed, before the provision-timeout phase's claim. That claim reads
    // the pauses again on its own snapshot and claims nothing.
    Room provisioning = rooms.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    Room empty = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(600)));
    ConferenceRoomReaper pausingMidCycle =
        reaperPausing(options, Phase.EMPTY_ROOM, Phase.PROVISION_TIMEOUT.label());

    CycleResult during = pausingMidCycle.runOnce(asOf, Cancellation.NONE);

    assertThat(rooms.status(empty.id)).isEqualTo("Ended");
    assertThat(rooms.status(provisioning.id)).isEqualTo("Provisioning");
    assertThat(during.provisionFailed()).isZero();
    assertThat(during.pausedPhases()).isEqualTo(1);
    // Read at the lock (nothing paused), then again once the claim found the pause.
    assertThat(pausesRead).containsExactly(Set.of(), Set.of(Phase.PROVISION_TIMEOUT));
  }

  @Test
  void pause_committed_during_a_drain_stops_it_at_the_next_batch_keeping_the_committed_ones()
      throws Exception {
    List<Room> empty = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      empty.add(rooms.insert(Rooms.emptyActive(asOf.minusSeconds(600 - i))));
    }
    ConferenceRoomReaperOptions draining =
        options.toBuilder().batchSize(2).drainEnabled(true).drainPause(Duration.ZERO).build();

    CycleResult during =
        reaperPausing(draining, Phase.EMPTY_ROOM, PauseState.ALL).runOnce(asOf, Cancellation.NONE);

    // The first batch of two committed; the whole-reaper pause stopped the drain and the phases
    // after it with work: stale-live (the rooms are not armed yet). Provision-timeout had nothing
    // due at the lock attempt, so it sent no claim to find the pause in.
    assertThat(during.emptyTimeout()).isEqualTo(2);
    assertThat(empty.stream().map(r -> rooms.status(r.id)))
        .containsExactly("Ended", "Ended", "Active", "Active", "Active");
    assertThat(during.pausedPhases()).isEqualTo(2);
    assertThat(pausesRead).last().isEqualTo(Set.of(Phase.EMPTY_ROOM, Phase.STALE_LIVE));
  }

  /**
   * A reaper whose observer pauses {@code scope} (through the operators' own action, committed on
   * its own connection) when the first batch of {@code after} commits.
   */
  ConferenceRoomReaper reaperPausing(
      ConferenceRoomReaperOptions options, Phase after, String scope) {
    ReaperObserver observer =
        new ReaperObserver() {
          boolean done;

          @Override
          public void pausesRead(String jobRunId, Set<Phase> paused) {
            pausesRead.add(paused);
          }

          @Override
          public void batchCommitted(Phase phase, pin.messenger.reaper.core.BatchOutcome outcome) {
            if (phase == after && !done) {
              done = true;
              try {
                assertThat(
                        actions.pause(request(OperatorAction.PAUSE, false), scope, null).result())
                    .isEqualTo(Result.APPLIED);
              } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
              }
            }
          }
        };
    return new ConferenceRoomReaper(
        new PostgresReaperStore(db.dataSource()), options, observer, List.of());
  }

  @Test
  void whole_pause_with_an_end_skips_every_phase_until_it_ends_by_itself() throws Exception {
    Room empty = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(600)));
    actions.pause(request(OperatorAction.PAUSE, false), PauseState.ALL, asOf.plusSeconds(60));

    CycleResult during = reaper.runOnce(asOf.plusSeconds(59), Cancellation.NONE);
    assertThat(during.lockAcquired()).isTrue();
    assertThat(during.pausedPhases()).isEqualTo(3);
    assertThat(rooms.status(empty.id)).isEqualTo("Active");

    CycleResult ended = reaper.runOnce(asOf.plusSeconds(60), Cancellation.NONE);
    assertThat(ended.pausedPhases()).isZero();
    assertThat(ended.emptyTimeout()).isEqualTo(1);
  }

  @Test
  void pausing_again_replaces_the_pause_and_shows_what_it_replaced() throws Exception {
    actions.pause(request(OperatorAction.PAUSE, false), "stale-live", null);
    Outcome again =
        actions.pause(request(OperatorAction.PAUSE, false), "stale-live", asOf.plusSeconds(5));

    assertThat(again.rows())
        .singleElement()
        .satisfies(r -> assertThat(r.get("replaces")).isNotNull());
    PauseState state;
    try (var c = db.dataSource().getConnection()) {
      state = Pauses.read(c);
    }
    assertThat(state.pauses())
        .singleElement()
        .satisfies(p -> assertThat(p.until()).isEqualTo(asOf.plusSeconds(5)));
  }

  @Test
  void resume_of_several_pauses_without_confirmation_changes_nothing_and_writes_no_audit()
      throws Exception {
    actions.pause(request(OperatorAction.PAUSE, false), "stale-live", null);
    actions.pause(request(OperatorAction.PAUSE, false), "empty-room", null);
    long before = auditRows();

    Outcome plan = actions.resume(request(OperatorAction.RESUME, false), null);

    assertThat(plan.result()).isEqualTo(Result.PLAN_ONLY);
    assertThat(plan.rows()).hasSize(2);
    assertThat(rooms.count("SELECT count(*) FROM messenger.conference_reaper_pauses")).isEqualTo(2);
    assertThat(auditRows()).isEqualTo(before);
    assertThat(actions.resume(request(OperatorAction.RESUME, false), "provision-timeout").result())
        .isEqualTo(Result.NOTHING);
  }

  Request at(OperatorAction action, Instant at, boolean confirmed) {
    return new Request(action, "alice", at, "test", Map.of("k", "v"), confirmed);
  }

  long pauseRows() {
    return rooms.count("SELECT count(*) FROM messenger.conference_reaper_pauses");
  }

  @Test
  void resume_once_a_pause_has_ended_by_itself_finds_nothing_and_writes_no_audit()
      throws Exception {
    Instant end = asOf.plusSeconds(60);
    actions.pause(request(OperatorAction.PAUSE, false), "stale-live", end);

    // At its end exactly the pause is over: the cycle runs the phase, and resume finds nothing.
    Outcome one = actions.resume(at(OperatorAction.RESUME, end, false), "stale-live");
    Outcome every = actions.resume(at(OperatorAction.RESUME, end, true), null);

    assertThat(one.result()).isEqualTo(Result.NOTHING);
    assertThat(one.message())
        .isEqualTo("'stale-live' is not paused: its pause ended by itself at " + end);
    assertThat(every.result()).isEqualTo(Result.NOTHING);
    assertThat(every.message())
        .isEqualTo("nothing is paused: the pause of stale-live ended by itself at " + end);
    assertThat(auditRows()).isEqualTo(1);
    assertThat(reaper.runOnce(end, Cancellation.NONE).pausedPhases()).isZero();
    // Left as it was: the next pause of the scope replaces it.
    assertThat(pauseRows()).isEqualTo(1);
    Outcome again = actions.pause(at(OperatorAction.PAUSE, end, false), "stale-live", null);
    assertThat(again.rows()).singleElement().satisfies(r -> assertThat(r.get("replaces")).isNull());
  }

  @Test
  void resume_of_every_pause_lifts_the_one_in_force_and_leaves_an_ended_one_alone()
      throws Exception {
    actions.pause(request(OperatorAction.PAUSE, false), "empty-room", asOf.plusSeconds(10));
    actions.pause(request(OperatorAction.PAUSE, false), "stale-live", null);

    Outcome resumed = actions.resume(at(OperatorAction.RESUME, asOf.plusSeconds(20), false), null);

    assertThat(resumed.result()).isEqualTo(Result.APPLIED);
    assertThat(resumed.rows())
        .singleElement()
        .satisfies(r -> assertThat(r.get("scope")).isEqualTo("stale-live"));
    assertThat(rooms.query("SELECT scope FROM messenger.conference_reaper_pauses"))
        .containsExactly(Map.of("scope", "empty-room"));
    assertThat(
            rooms.query(
                "SELECT rows_changed FROM messenger.conference_reaper_audit WHERE action = 'resume'"))
        .containsExactly(Map.of("rows_changed", 1));
  }

  @Test
  void resume_of_a_phase_during_a_whole_pause_changes_nothing_and_names_the_whole_pause()
      throws Exception {
    actions.pause(
        new Request(OperatorAction.PAUSE, "bob", asOf, "database failover", Map.of(), false),
        PauseState.ALL,
        null);

    Outcome refused =
        actions.resume(at(OperatorAction.RESUME, asOf.plusSeconds(1), false), "provision-timeout");

    assertThat(refused.result()).isEqualTo(Result.NOTHING);
    assertThat(refused.message())
        .isEqualTo(
            "'provision-timeout' has no pause of its own: the whole reaper is paused by bob since "
                + asOf
                + ", until resumed: database failover; lift it with `bin/reaper resume` (no"
                + " --phase), then pause again the phases that should stay paused");
    assertThat(auditRows()).isEqualTo(1);
    assertThat(pauseRows()).isEqualTo(1);

    actions.pause(request(OperatorAction.PAUSE, false), "provision-timeout", null);
    Outcome lifted =
        actions.resume(at(OperatorAction.RESUME, asOf.plusSeconds(2), false), "provision-timeout");

    assertThat(lifted.result()).isEqualTo(Result.APPLIED);
    assertThat(lifted.message())
        .startsWith("'provision-timeout' stays paused: the whole reaper is paused by bob");
    PauseState state;
    try (var c = db.dataSource().getConnection()) {
      state = Pauses.read(c);
    }
    assertThat(state.pausedAt(asOf.plusSeconds(2))).contains(Phase.PROVISION_TIMEOUT);
  }

  @Test
  void retry_ends_the_backoff_keeps_the_error_history_and_the_next_cycle_closes_the_fixed_row()
      throws Exception {
    Room poison = Rooms.emptyActive(asOf.minusSeconds(500));
    poison.startedAt = null;
    rooms.insert(poison);
    reaper.runOnce(asOf, Cancellation.NONE);
    rooms.exec(
        "UPDATE messenger.conference_sessions SET started_at = created_at WHERE id = ?", poison.id);
    Instant soon = asOf.plusSeconds(5); // still inside the backoff of one polling interval
    assertThat(reaper.runOnce(soon, Cancellation.NONE).emptyTimeout()).isZero();

    Outcome retried =
        actions.retry(
            new Request(
                OperatorAction.RETRY,
                "alice",
                soon,
                null,
                Map.of("conferenceId", poison.id),
                false),
            poison.id);

    assertThat(retried.result()).isEqualTo(Result.APPLIED);
    Map<String, Object> row = rooms.row(poison.id);
    assertThat(row.get("reaper_next_attempt_at")).isNull();
    assertThat(row.get("reaper_attempts")).isEqualTo(1);
    assertThat((String) row.get("reaper_last_error")).contains("started_at is null");
    assertThat(reaper.runOnce(soon.plusMillis(1), Cancellation.NONE).emptyTimeout()).isEqualTo(1);
    assertThat(actions.retry(request(OperatorAction.RETRY, true), poison.id).result())
        .isEqualTo(Result.NOTHING);
    assertThat(actions.whyNotRetryable(poison.id, soon)).contains("is Ended");
    assertThat(actions.whyNotRetryable(UUID.randomUUID(), soon)).startsWith("no conference");
  }

  @Test
  void requeue_puts_quarantined_rows_back_with_their_ids_and_writes_one_audit_row()
      throws Exception {
    Room a = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(600)));
    Room b = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(500)));
    reaper.runOnce(asOf, Cancellation.NONE);
    List<Map<String, Object>> before =
        rooms.query("SELECT id, payload::text AS payload FROM messenger.integration_outbox");
    rooms.exec(
        "UPDATE messenger.integration_outbox SET quarantined_at = ?, attempts = 10,"
            + " last_error = 'RecordTooLargeException', next_attempt_at = ?",
        Rooms.ts(asOf),
        Rooms.ts(asOf.plus(Duration.ofMinutes(5))));

    Outcome plan =
        actions.requeueQuarantined(request(OperatorAction.REQUEUE_KAFKA_QUARANTINED, false), null);
    assertThat(plan.result()).isEqualTo(Result.PLAN_ONLY);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE quarantined_at IS NULL"))
        .isZero();
    assertThat(
            actions
                .requeueQuarantined(
                    request(OperatorAction.REQUEUE_KAFKA_QUARANTINED, true), asOf.plusSeconds(1))
                .result())
        .isEqualTo(Result.NOTHING);

    Outcome done =
        actions.requeueQuarantined(request(OperatorAction.REQUEUE_KAFKA_QUARANTINED, true), asOf);

    assertThat(done.result()).isEqualTo(Result.APPLIED);
    assertThat(done.rows()).hasSize(2);
    assertThat(
            rooms.query(
                "SELECT id, payload::text AS payload FROM messenger.integration_outbox"
                    + " WHERE quarantined_at IS NULL AND attempts = 0 AND next_attempt_at IS NULL"))
        .containsExactlyInAnyOrderElementsOf(before);
    List<Map<String, Object>> audit =
        rooms.query(
            "SELECT actor, action, rows_changed, changed::text AS changed"
                + " FROM messenger.conference_reaper_audit");
    assertThat(audit)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.get("actor")).isEqualTo("alice");
              assertThat(r.get("rows_changed")).isEqualTo(2);
              before.forEach(
                  o -> assertThat((String) r.get("changed")).contains(o.get("id").toString()));
            });
    assertThat(actions.recent(5))
        .singleElement()
        .satisfies(r -> assertThat(r.get("arguments")).isEqualTo(Map.of("k", "v")));
    assertThat(a.id).isNotEqualTo(b.id);
  }

  @Test
  void requeue_puts_a_given_up_recorder_stop_back_with_its_id() throws Exception {
    Room a = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(600)));
    rooms.recording(a.id, "Recording", a.startedAt);
    reaper.runOnce(asOf, Cancellation.NONE);
    rooms.exec(
        "UPDATE messenger.recorder_stop_requests SET gave_up_at = ?, attempts = 10,"
            + " last_error = 'HTTP 503'",
        Rooms.ts(asOf));
    Object id = rooms.query("SELECT id FROM messenger.recorder_stop_requests").get(0).get("id");

    Outcome done =
        actions.requeueGivenUp(request(OperatorAction.REQUEUE_RECORDER_GIVEN_UP, false), null);

    assertThat(done.result()).isEqualTo(Result.APPLIED);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.recorder_stop_requests"
                    + " WHERE id = ? AND gave_up_at IS NULL AND attempts = 0",
                id))
        .isEqualTo(1);
  }
}
