package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.delivery.DeliveryObserver;
import pin.messenger.reaper.delivery.OutboxRelay;
import pin.messenger.reaper.delivery.RelayOptions;
import pin.messenger.reaper.schema.SchemaMigrations;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * The documented least-privilege roles (ops/sql): migrations as the owner role, the whole worker as
 * the worker role — and the worker role cannot do what it must not (delete sessions, rewrite their
 * ids or chats).
 */
class LeastPrivilegeTest {
  static TestDatabase admin;
  static HikariDataSource owner;
  static HikariDataSource worker;
  static HikariDataSource operator;

  @BeforeAll
  static void roles() throws Exception {
    admin = TestDatabase.create(false);
    try (Connection c = admin.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(Files.readString(Path.of("ops/sql/least-privilege.sql")));
      st.execute("ALTER ROLE conference_reaper_owner PASSWORD 'owner-pw'");
      st.execute("ALTER ROLE conference_reaper PASSWORD 'worker-pw'");
      st.execute("ALTER ROLE conference_reaper_operator PASSWORD 'operator-pw'");
    }
    owner = pool("conference_reaper_owner", "owner-pw");
    SchemaMigrations.migrate(owner);
    try (Connection c = admin.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(Files.readString(Path.of("ops/sql/least-privilege-grants.sql")));
    }
    worker = pool("conference_reaper", "worker-pw");
    operator = pool("conference_reaper_operator", "operator-pw");
  }

  static HikariDataSource pool(String user, String password) {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(admin.url());
    ds.setUsername(user);
    ds.setPassword(password);
    ds.setMaximumPoolSize(4);
    return ds;
  }

  @AfterAll
  static void close() {
    operator.close();
    worker.close();
    owner.close();
    admin.close();
  }

  @Test
  void the_worker_role_runs_cycles_relay_sweeps_status_and_schema_checks() throws Exception {
    Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
    Rooms asOwner = new Rooms(owner);
    Room empty = asOwner.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    asOwner.recording(empty.id, "Recording", empty.startedAt);
    asOwner.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    Room poison = Rooms.emptyActive(asOf.minusSeconds(400));
    poison.startedAt = null;
    asOwner.insert(poison);
    PostgresReaperStore store = new PostgresReaperStore(worker);

    CycleResult result =
        new ConferenceRoomReaper(
                store, ConferenceRoomReaperOptions.defaults(), ReaperObserver.NONE, List.of())
            .runOnce(asOf, Cancellation.NONE);

    assertThat(result.emptyTimeout()).isEqualTo(1);
    assertThat(result.provisionFailed()).isEqualTo(1);
    assertThat(result.poisoned()).isEqualTo(1);
    assertThat(SchemaVerifier.missing(worker)).isEmpty();
    StatusReport.Status status =
        new StatusReport(worker, store).read(asOf, ConferenceRoomReaperOptions.defaults());
    assertThat(status.poisonCount()).isEqualTo(1L);
    try (OutboxRelay relay =
        new OutboxRelay(worker, () -> null, RelayOptions.defaults(), DeliveryObserver.NONE)) {
      assertThat(
              ((Number) new Rooms(worker).query(Diagnostics.DELIVERY).get(0).get("outbox_pending"))
                  .longValue())
          .isEqualTo(1);
      asOwner.exec(
          "UPDATE messenger.integration_outbox SET published_at = ?",
          Rooms.ts(asOf.minus(Duration.ofDays(8))));
      assertThat(relay.sweep(asOf, 10)).isEqualTo(1);
    }
  }

  @Test
  void the_worker_role_runs_cycles_in_debezium_mode_and_cannot_read_the_events_back()
      throws Exception {
    Instant asOf = Instant.parse("2026-12-02T11:00:00Z");
    Room empty = new Rooms(owner).insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    OutboxOptions debezium = new OutboxOptions(OutboxOptions.Mode.DEBEZIUM);
    PostgresReaperStore store =
        new PostgresReaperStore(worker, debezium, RelayOptions.defaults().source());

    CycleResult result =
        new ConferenceRoomReaper(
                store, ConferenceRoomReaperOptions.defaults(), ReaperObserver.NONE, List.of())
            .runOnce(asOf, Cancellation.NONE);

    assertThat(result.emptyTimeout()).isEqualTo(1);
    assertThat(new Rooms(owner).status(empty.id)).isEqualTo("Ended");
    assertThat(SchemaVerifier.missing(worker, debezium)).isEmpty();
    assertThatThrownBy(() -> new Rooms(worker).query("SELECT * FROM " + DebeziumOutboxRows.TABLE))
        .hasMessageContaining("permission denied");
  }

  @Test
  void the_worker_role_cannot_delete_sessions_or_rewrite_what_is_not_its_business() {
    Rooms asWorker = new Rooms(worker);
    Room room = new Rooms(owner).insert(Rooms.emptyActive(Instant.now()));

    assertThatThrownBy(
            () -> asWorker.exec("DELETE FROM messenger.conference_sessions WHERE id = ?", room.id))
        .hasMessageContaining("permission denied");
    assertThatThrownBy(
            () ->
                asWorker.exec(
                    "UPDATE messenger.conference_sessions SET chat_id = gen_random_uuid() WHERE id = ?",
                    room.id))
        .hasMessageContaining("permission denied");
    assertThatThrownBy(() -> asWorker.exec("DELETE FROM messenger.realtime_outbox"))
        .hasMessageContaining("permission denied");
    assertThatThrownBy(() -> asWorker.exec("CREATE TABLE messenger.intruder (id int)"))
        .hasMessageContaining("permission denied");
  }

  @Test
  void the_operator_role_pauses_retries_requeues_and_audits_and_the_worker_obeys_but_cannot_pause()
      throws Exception {
    Instant asOf = Instant.parse("2026-12-03T10:00:00Z");
    Rooms asOwner = new Rooms(owner);
    Room provisioning = asOwner.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    Room poison = Rooms.emptyActive(asOf.minusSeconds(400));
    poison.startedAt = null;
    asOwner.insert(poison);
    OperatorActions actions = new OperatorActions(operator);
    OperatorActions.Request request =
        new OperatorActions.Request(
            // One request for every action here: what is checked is the role's privileges.
            OperatorAction.PAUSE, "alice", asOf, "least privilege", Map.of(), true);

    assertThat(actions.pause(request, "provision-timeout", null).result())
        .isEqualTo(OperatorActions.Result.APPLIED);
    ConferenceRoomReaper reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(worker),
            ConferenceRoomReaperOptions.defaults(),
            ReaperObserver.NONE,
            List.of());
    CycleResult paused = reaper.runOnce(asOf, Cancellation.NONE);
    assertThat(paused.pausedPhases()).isEqualTo(1);
    assertThat(asOwner.status(provisioning.id)).isEqualTo("Provisioning");
    assertThat(actions.resume(request, null).result()).isEqualTo(OperatorActions.Result.APPLIED);
    assertThat(actions.retry(request, poison.id).result())
        .isEqualTo(OperatorActions.Result.APPLIED);
    asOwner.exec("UPDATE messenger.integration_outbox SET quarantined_at = ?", Rooms.ts(asOf));
    asOwner.exec("UPDATE messenger.recorder_stop_requests SET gave_up_at = ?", Rooms.ts(asOf));
    actions.requeueQuarantined(request, null);
    actions.requeueGivenUp(request, null);
    assertThat(actions.recent(10)).hasSizeGreaterThanOrEqualTo(3);

    Rooms asWorker = new Rooms(worker);
    assertThatThrownBy(
            () ->
                asWorker.exec(
                    "INSERT INTO messenger.conference_reaper_pauses VALUES ('all', 'x', 'y', now(), null)"))
        .hasMessageContaining("permission denied");
    // On-call starts with the worker's settings: it reads the trail, with the role that wrote it.
    List<Map<String, Object>> trail = new OperatorActions(worker).recent(10);
    assertThat(trail).extracting(r -> r.get("db_role")).contains("conference_reaper_operator");
    assertThatThrownBy(
            () ->
                asWorker.exec(
                    "INSERT INTO messenger.conference_reaper_audit (at, actor, action, arguments, rows_changed, changed)"
                        + " VALUES (now(), 'mallory', 'pause', '{}', 0, '[]')"))
        .hasMessageContaining("permission denied");
    Rooms asOperator = new Rooms(operator);
    assertThatThrownBy(() -> asOperator.exec("DELETE FROM messenger.conference_reaper_audit"))
        .hasMessageContaining("permission denied");
    assertThatThrownBy(
            () -> asOperator.exec("UPDATE messenger.conference_reaper_audit SET actor = 'mallory'"))
        .hasMessageContaining("permission denied");
    // The role beside --actor is the database's to fill: the operator cannot write another.
    assertThatThrownBy(
            () ->
                asOperator.exec(
                    "INSERT INTO messenger.conference_reaper_audit (at, actor, action, arguments, rows_changed, changed, db_role)"
                        + " VALUES (now(), 'alice', 'pause', '{}', 0, '[]', 'postgres')"))
        .hasMessageContaining("permission denied");
    // end: the reaper's own write, as the operator, audited.
    Room stuck = Rooms.emptyActive(asOf.minusSeconds(900));
    stuck.startedAt = null;
    asOwner.insert(stuck);
    OperatorActions.Request end =
        new OperatorActions.Request(
            OperatorAction.END,
            "alice",
            asOf,
            "poison",
            Map.of("correlationId", "operator-end-lp"),
            true);
    assertThat(
            new OperatorEnd(operator)
                .end(
                    end,
                    stuck.id,
                    new pin.messenger.reaper.core.ManualEnd.Choice(null, true),
                    ConferenceRoomReaperOptions.defaults())
                .result())
        .isEqualTo(OperatorActions.Result.APPLIED);
    assertThat(asOwner.status(stuck.id)).isEqualTo("Ended");
    // The worker's heartbeat: its own row in the runners' table.
    new Runners(worker)
        .refresh(
            new Runners.Row(
                "lp",
                "host",
                1L,
                "v",
                asOf,
                Duration.ofMinutes(1),
                null,
                null,
                null,
                null,
                List.of(),
                null),
            Duration.ofDays(1));
    assertThat(new Runners(worker).count().live()).isEqualTo(1);
  }
}
