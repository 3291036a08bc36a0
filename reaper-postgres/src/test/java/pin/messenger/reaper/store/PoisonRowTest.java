package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * A poison row never sinks its batch: isolated, logged, counted, kept with its error, retried
 * later.
 */
class PoisonRowTest extends DatabaseTest {

  final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();
  final Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
  final List<UUID> reportedFailures = new CopyOnWriteArrayList<>();
  ConferenceRoomReaper reaper;

  @BeforeEach
  void clean() {
    ReaperObserver observer =
        new ReaperObserver() {
          @Override
          public void itemFailed(String jobRunId, Phase phase, UUID conferenceId, String error) {
            reportedFailures.add(conferenceId);
          }
        };
    reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()), options, observer, List.of());
  }

  @Test
  void row_the_decision_rejects_is_excluded_counted_kept_with_its_error_and_the_rest_commit() {
    Room poison = Rooms.emptyActive(asOf.minusSeconds(500));
    poison.startedAt = null; // Active but never started: no duration can be computed
    rooms.insert(poison);
    Room healthy = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(400)));

    CycleResult result = reaper.runOnce(asOf, Cancellation.NONE);

    assertThat(result.poisoned()).isEqualTo(1);
    assertThat(result.emptyTimeout()).isEqualTo(1);
    assertThat(rooms.status(healthy.id)).isEqualTo("Ended");
    Map<String, Object> row = rooms.row(poison.id);
    assertThat(row.get("status")).isEqualTo("Active");
    assertThat(row.get("reaper_attempts")).isEqualTo(1);
    assertThat((String) row.get("reaper_last_error")).contains("started_at is null");
    assertThat(row.get("reaper_last_error_at")).isEqualTo(asOf);
    assertThat(row.get("reaper_next_attempt_at")).isEqualTo(asOf.plus(options.pollingInterval()));
    assertThat(reportedFailures).containsExactly(poison.id);
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(1);
  }

  @Test
  void a_dry_run_reports_a_poison_row_but_moves_no_error_meter() {
    Room poison = Rooms.emptyActive(asOf.minusSeconds(500));
    poison.startedAt = null;
    rooms.insert(poison);

    CycleResult result = reaper.dryRun(asOf);

    assertThat(result.poisoned()).as("the dry run's report").isEqualTo(1);
    assertThat(reportedFailures).as("item-failed meters and spans").isEmpty();
    assertThat(rooms.row(poison.id).get("reaper_attempts")).isEqualTo(0);
  }

  @Test
  void poison_row_waits_out_its_backoff_then_is_tried_again_with_a_longer_one() {
    Room poison = Rooms.emptyActive(asOf.minusSeconds(500));
    poison.startedAt = null;
    rooms.insert(poison);
    reaper.runOnce(asOf, Cancellation.NONE);

    CycleResult inBackoff = reaper.runOnce(asOf.plusSeconds(10), Cancellation.NONE);
    assertThat(inBackoff.poisoned()).isZero();

    CycleResult retried = reaper.runOnce(asOf.plusSeconds(30), Cancellation.NONE);
    assertThat(retried.poisoned()).isEqualTo(1);
    Map<String, Object> row = rooms.row(poison.id);
    assertThat(row.get("reaper_attempts")).isEqualTo(2);
    assertThat(row.get("reaper_next_attempt_at"))
        .isEqualTo(asOf.plusSeconds(30).plus(options.pollingInterval().multipliedBy(2)));
  }

  @Test
  void row_whose_write_fails_in_the_database_is_isolated_and_the_rest_of_the_batch_commits() {
    List<Room> due = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      due.add(Rooms.emptyActive(asOf.minusSeconds(100 + i)));
    }
    Room poison = due.get(4);
    rooms.insertAll(due);
    // Another writer's rule that this one row breaks when it is ended (NOT VALID: existing rows are
    // not checked).
    rooms.exec(
        "ALTER TABLE messenger.conference_sessions ADD CONSTRAINT ck_test_poison"
            + " CHECK (status <> 'Ended' OR chat_id <> '"
            + poison.chatId
            + "') NOT VALID");
    try {
      CycleResult result = reaper.runOnce(asOf, Cancellation.NONE);

      assertThat(result.emptyTimeout()).isEqualTo(6);
      assertThat(result.poisoned()).isEqualTo(1);
      assertThat(rooms.status(poison.id)).isEqualTo("Active");
      assertThat((String) rooms.row(poison.id).get("reaper_last_error"))
          .contains("23514")
          .contains("ck_test_poison");
      assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(6);
      assertThat(
              rooms.count(
                  "SELECT count(*) FROM messenger.realtime_outbox WHERE conference_id = ?",
                  poison.id))
          .isZero();
      assertThat(
              rooms.count(
                  "SELECT count(*) FROM messenger.integration_outbox WHERE message_key = ?",
                  poison.dealId.toString()))
          .isZero();
      assertThat(reportedFailures).containsExactly(poison.id);
    } finally {
      rooms.exec("ALTER TABLE messenger.conference_sessions DROP CONSTRAINT ck_test_poison");
    }
    CycleResult later = reaper.runOnce(asOf.plusSeconds(60), Cancellation.NONE);
    assertThat(later.emptyTimeout()).isEqualTo(1);
    assertThat(rooms.status(poison.id)).isEqualTo("Ended");
  }

  @Test
  void impossible_timestamps_make_a_poison_row_not_a_negative_duration() {
    Room future = Rooms.emptyActive(asOf.minusSeconds(500));
    future.startedAt = asOf.plusSeconds(3600);
    rooms.insert(future);

    CycleResult result = reaper.runOnce(asOf, Cancellation.NONE);

    assertThat(result.poisoned()).isEqualTo(1);
    assertThat(rooms.status(future.id)).isEqualTo("Active");
    assertThat((String) rooms.row(future.id).get("reaper_last_error"))
        .contains("started_at")
        .contains("after asOf");
  }

  @Test
  void poison_rows_of_every_kind_in_one_batch_never_stall_it_and_are_each_reported() {
    List<Room> healthy = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      healthy.add(Rooms.emptyActive(asOf.minusSeconds(100 + i)));
    }
    rooms.insertAll(healthy);
    Room nullStart = Rooms.emptyActive(asOf.minusSeconds(500));
    nullStart.startedAt = null; // a null where the decision needs a value
    Room future = Rooms.emptyActive(asOf.minusSeconds(510));
    future.startedAt = asOf.plusSeconds(600); // impossible timestamps
    Room checked =
        Rooms.emptyActive(asOf.minusSeconds(520)); // another writer's CHECK refuses its close
    Room triggered =
        Rooms.emptyActive(asOf.minusSeconds(530)); // another writer's trigger refuses its close
    rooms.insertAll(List.of(nullStart, future, checked, triggered));
    rooms.exec(
        "ALTER TABLE messenger.conference_sessions ADD CONSTRAINT ck_test_mixed"
            + " CHECK (status <> 'Ended' OR chat_id <> '"
            + checked.chatId
            + "') NOT VALID");
    rooms.exec(
        "CREATE FUNCTION messenger.refuse_close() RETURNS trigger LANGUAGE plpgsql AS $$"
            + " BEGIN IF NEW.id = '"
            + triggered.id
            + "' AND NEW.status = 'Ended' THEN"
            + " RAISE EXCEPTION 'closing % is not allowed', NEW.id; END IF; RETURN NEW; END $$");
    rooms.exec(
        "CREATE TRIGGER tr_refuse_close BEFORE UPDATE ON messenger.conference_sessions"
            + " FOR EACH ROW EXECUTE FUNCTION messenger.refuse_close()");
    try {
      CycleResult result = reaper.runOnce(asOf, Cancellation.NONE);

      assertThat(result.emptyTimeout()).isEqualTo(20);
      assertThat(result.poisoned()).isEqualTo(4);
      assertThat(reportedFailures)
          .containsExactlyInAnyOrder(nullStart.id, future.id, checked.id, triggered.id);
      assertThat((String) rooms.row(nullStart.id).get("reaper_last_error"))
          .contains("started_at is null");
      assertThat((String) rooms.row(future.id).get("reaper_last_error")).contains("after asOf");
      assertThat((String) rooms.row(checked.id).get("reaper_last_error")).contains("ck_test_mixed");
      assertThat((String) rooms.row(triggered.id).get("reaper_last_error"))
          .contains("P0001")
          .contains("not allowed");
      assertThat(
              rooms.count(
                  "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'"))
          .isEqualTo(4);
      assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(20);
    } finally {
      rooms.exec("DROP TRIGGER tr_refuse_close ON messenger.conference_sessions");
      rooms.exec("DROP FUNCTION messenger.refuse_close()");
      rooms.exec("ALTER TABLE messenger.conference_sessions DROP CONSTRAINT ck_test_mixed");
    }
  }
}
