package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * From outside, with the production jar and the least-privilege roles of ops/sql: two workers (as
 * the worker role) listed by {@code status}, one killed with SIGKILL and shown silent; a poison
 * room's error history in {@code explain}, then {@code end} (as the operator role) asking for a
 * choice and closing it with its rows and audit entry; {@code audit} (as the worker role) showing
 * the ids and the database role; the worker role refused writing an action.
 */
class PoisonRoomEndAndRunnersIT {
  static ReliabilityHarness harness;
  static ReaperWorker a;
  static ReaperWorker b;

  @BeforeAll
  static void start() throws Exception {
    harness = ReliabilityHarness.start();
    PGSimpleDataSource admin = new PGSimpleDataSource();
    admin.setUrl(harness.server.jdbcUrl());
    admin.setUser("postgres");
    try (Connection c = admin.getConnection();
        Statement st = c.createStatement()) {
      st.execute(Files.readString(Path.of("ops/sql/least-privilege.sql")));
      st.execute(Files.readString(Path.of("ops/sql/least-privilege-grants.sql")));
    }
    // As documented for the worker role: the schema is the owner's to migrate, the worker verifies.
    a = harness.worker("a", as("conference_reaper"), "--reaper.schema.migrate=false");
    b = harness.worker("b", as("conference_reaper"), "--reaper.schema.migrate=false");
    a.awaitStarted(Duration.ofSeconds(120));
    b.awaitStarted(Duration.ofSeconds(120));
  }

  @AfterAll
  static void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
  }

  /** The database environment as {@code role} (the test server trusts local connections). */
  static Map<String, String> as(String role) {
    Map<String, String> env = new HashMap<>(JarRunner.database(harness.server));
    env.put("SPRING_DATASOURCE_USERNAME", role);
    return env;
  }

  static JarRunner.Split reaper(String role, String... args) throws Exception {
    return JarRunner.runSplit(as(role), ReliabilityHarness.JVM, args);
  }

  static List<Map<String, Object>> runners(String state) throws Exception {
    JarRunner.Split status = reaper("conference_reaper", "status", "--json");
    assertThat(status.exit()).as(status.stderr()).isZero();
    return JsonPath.read(status.stdout(), "$.runners[?(@.state == '" + state + "')]");
  }

  /**
   * Runners of these pids in {@code state} by their rows, judged as the documentation says (live:
   * not stopped and refreshed within the row's own silent_after_ms, on the database's clock). The
   * waits poll this; {@code status} is then run once to show the same thing, instead of starting a
   * JVM per poll.
   */
  static long rowsIn(String state, long... pids) {
    String live =
        "stopped_at IS NULL AND last_seen_at >= clock_timestamp() - silent_after_ms * interval '1 ms'";
    String condition = state.equals("live") ? live : "stopped_at IS NULL AND NOT (" + live + ")";
    return harness.rooms.count(
        "SELECT count(*) FROM messenger.conference_reaper_runners WHERE pid = ANY(?) AND "
            + condition,
        (Object) Arrays.stream(pids).boxed().toArray(Long[]::new));
  }

  @Test
  void status_lists_both_runners_then_the_killed_one_as_silent_with_how_long() throws Exception {
    Await.until(
        "both workers' rows live",
        Duration.ofSeconds(60),
        () -> rowsIn("live", a.pid(), b.pid()) == 2,
        () -> "; worker a:\n" + a.tail(20));
    assertThat(runners("live"))
        .extracting(r -> ((Number) r.get("pid")).longValue())
        .contains(a.pid(), b.pid());

    long killed = b.pid();
    b.kill();

    Await.until(
        "the killed worker's row silent",
        Duration.ofSeconds(90),
        () -> rowsIn("silent", killed) == 1,
        () -> "");
    JarRunner.Split after = reaper("conference_reaper", "status", "--json");
    assertThat(after.exit()).as(after.stderr()).isZero();
    assertThat((List<Number>) JsonPath.read(after.stdout(), "$.runners[?(@.state == 'live')].pid"))
        .extracting(Number::longValue)
        .containsExactly(a.pid());
    List<Map<String, Object>> silentRows =
        JsonPath.read(after.stdout(), "$.runners[?(@.state == 'silent')]");
    Map<String, Object> silent =
        silentRows.stream()
            .filter(r -> ((Number) r.get("pid")).longValue() == killed)
            .findFirst()
            .orElseThrow();
    assertThat(((Number) silent.get("seen_seconds_ago")).doubleValue()).isGreaterThan(4.0);
    assertThat(silent.get("version")).isEqualTo("0.1.0-SNAPSHOT");
    assertThat((String) silent.get("host")).isNotBlank();
    assertThat(silent.get("stopped_at")).isNull();
    JarRunner.Split human = reaper("conference_reaper", "status");
    assertThat(human.stdout()).contains("runners: 1 live, 1 silent").contains("SILENT for");
  }

  @Test
  void end_closes_a_poison_room_with_its_rows_and_audit_entry_and_the_worker_role_reads_the_trail()
      throws Exception {
    Rooms rooms = harness.rooms;
    Instant now = Instant.now();
    // Past the default empty-room grace too: end, like status and explain, judges the windows by
    // the reaper.* options it is given (here none: the defaults), not by the workers'.
    Room poison = Rooms.emptyActive(now.minusSeconds(600));
    poison.startedAt = null;
    rooms.insert(poison);
    UUID recording = rooms.recording(poison.id, "Recording", now.minusSeconds(500));
    Await.until(
        "the room failed twice as poison",
        Duration.ofSeconds(60),
        () ->
            rooms.count(
                    "SELECT count(*) FROM messenger.conference_sessions WHERE id = ? AND reaper_attempts >= 2",
                    poison.id)
                == 1,
        () -> "; worker a:\n" + a.tail(20));
    JarRunner.Split explain =
        reaper("conference_reaper", "explain", poison.id.toString(), "--json");
    assertThat(explain.exit()).as(explain.stderr()).isZero();
    List<String> errors = JsonPath.read(explain.stdout(), "$.errorHistory[*].error");
    assertThat(errors).hasSizeGreaterThanOrEqualTo(2).allMatch(e -> e.contains("started_at"));

    JarRunner.Split asked =
        reaper(
            "conference_reaper_operator",
            "end",
            poison.id.toString(),
            "--reason",
            "poison: no started_at",
            "--actor",
            "oncall");
    assertThat(asked.exit()).as(asked.stdout() + asked.stderr()).isEqualTo(4);
    assertThat(asked.stdout()).contains("--started-at").contains("--without-event");
    assertThat(rooms.status(poison.id)).isEqualTo("Active");

    Instant start = poison.createdAt;
    JarRunner.Split ended =
        reaper(
            "conference_reaper_operator",
            "end",
            poison.id.toString(),
            "--reason",
            "poison: no started_at",
            "--actor",
            "oncall",
            "--started-at",
            start.toString(),
            "--json");
    assertThat(ended.exit()).as(ended.stdout() + ended.stderr()).isZero();
    assertThat((String) JsonPath.read(ended.stdout(), "$.result")).isEqualTo("applied");
    Map<String, Object> row = rooms.row(poison.id);
    assertThat(row.get("status")).isEqualTo("Ended");
    assertThat(row.get("end_reason")).isEqualTo("EmptyTimeout");
    assertThat(row.get("ended_at")).isNotNull();
    assertThat(((Number) row.get("duration_seconds")).longValue()).isPositive();
    List<String> outbox = JsonPath.read(ended.stdout(), "$.rows[0].written.integrationOutbox[*]");
    List<String> realtime = JsonPath.read(ended.stdout(), "$.rows[0].written.realtimeOutbox[*]");
    List<String> stops = JsonPath.read(ended.stdout(), "$.rows[0].written.recorderStopRequests[*]");
    assertThat(outbox).hasSize(1);
    assertThat(realtime).hasSize(1);
    assertThat(stops).hasSize(1);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.recorder_stop_requests WHERE recording_id = ?",
                recording))
        .isEqualTo(1);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE id = ?::uuid"
                    + " AND payload->>'conferenceId' = ?",
                outbox.get(0),
                poison.id.toString()))
        .isEqualTo(1);

    JarRunner.Split audit =
        reaper("conference_reaper", "audit", "--action", "end", "--actor", "oncall", "--json");
    assertThat(audit.exit()).as(audit.stderr()).isZero();
    List<Map<String, Object>> actions = JsonPath.read(audit.stdout(), "$.actions");
    assertThat(actions).hasSize(1);
    assertThat(actions.get(0).get("db_role")).isEqualTo("conference_reaper_operator");
    assertThat(actions.get(0).get("actor")).isEqualTo("oncall");
    @SuppressWarnings("unchecked")
    List<String> ids = (List<String>) actions.get(0).get("ids");
    assertThat(ids)
        .contains(poison.id.toString(), outbox.get(0), realtime.get(0), stops.get(0))
        .hasSize(4);
    JarRunner.Split humanAudit = reaper("conference_reaper", "audit", "--since", "1h");
    assertThat(humanAudit.stdout())
        .contains("oncall (conference_reaper_operator)")
        .contains(poison.id.toString());

    JarRunner.Split refused =
        reaper("conference_reaper", "pause", "--reason", "the worker must not", "--json");
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.stdout()).contains("permission denied");
    assertThat(rooms.count("SELECT count(*) FROM messenger.conference_reaper_pauses")).isZero();
  }
}
