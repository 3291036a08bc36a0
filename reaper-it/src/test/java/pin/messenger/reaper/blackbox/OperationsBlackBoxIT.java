package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * From outside, what the on-call engineer relies on: the JSON log events the spec names (with
 * jobRunId on every line of a cycle), no password anywhere in the output, and {@code status} /
 * {@code explain} pointing at causes.
 */
class OperationsBlackBoxIT {
  static final String CANARY = "Canary-Pa55word-7f3e";
  static PostgresServer server;
  static Rooms rooms;

  @BeforeAll
  static void start() throws Exception {
    server = PostgresServer.startMigrated();
    rooms = server.rooms();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void logs_are_json_events_named_by_the_spec_with_ids_and_never_the_password() throws Exception {
    Instant now = Instant.now();
    Room empty = rooms.insert(Rooms.emptyActive(now.minusSeconds(300)));
    Room poison = Rooms.emptyActive(now.minusSeconds(400));
    poison.startedAt = null;
    rooms.insert(poison);
    Map<String, String> env = new HashMap<>(JarRunner.database(server));
    // The password in the URL (trust auth accepts any): it must not reach a single line of output.
    env.put(
        "SPRING_DATASOURCE_URL",
        server.jdbcUrl() + "?password=" + CANARY + "&ApplicationName=reaper-bb");

    JarRunner.Run run = JarRunner.run(env, "run-once");

    assertThat(run.exit()).as(run.stdout()).isZero();
    assertThat(run.stdout()).doesNotContain(CANARY);
    List<String> lines = run.stdout().lines().filter(l -> l.startsWith("{\"@timestamp\"")).toList();
    String jobRunId = JsonPath.read(run.lastLine(), "$.jobRunId");
    String started = event(lines, "cycle started");
    assertThat((String) JsonPath.read(started, "$.jobRunId")).isEqualTo(jobRunId);
    assertThat((String) JsonPath.read(started, "$.asOf")).isNotBlank();
    assertThat(lines.stream().filter(l -> l.contains("\"message\":\"batch selected\"")).count())
        .isEqualTo(3);
    String reaped = event(lines, "conference reaped");
    assertThat((String) JsonPath.read(reaped, "$.conferenceId")).isEqualTo(empty.id.toString());
    assertThat((String) JsonPath.read(reaped, "$.chatId")).isEqualTo(empty.chatId.toString());
    assertThat((String) JsonPath.read(reaped, "$.dealId")).isEqualTo(empty.dealId.toString());
    assertThat((String) JsonPath.read(reaped, "$.status")).isEqualTo("Ended");
    assertThat((String) JsonPath.read(reaped, "$.endReason")).isEqualTo("EmptyTimeout");
    assertThat(((Number) JsonPath.read(reaped, "$.durationSeconds")).longValue()).isPositive();
    String failed = event(lines, "item failed");
    assertThat((String) JsonPath.read(failed, "$.conferenceId")).isEqualTo(poison.id.toString());
    assertThat((String) JsonPath.read(failed, "$.log.level")).isEqualTo("ERROR");
    String completed = event(lines, "cycle completed");
    assertThat(((Number) JsonPath.read(completed, "$.emptyTimeout")).intValue()).isEqualTo(1);
    assertThat(((Number) JsonPath.read(completed, "$.failed")).intValue()).isEqualTo(1);
    assertThat(((Number) JsonPath.read(completed, "$.durationMs")).intValue()).isNotNegative();
    // Every line between "cycle started" and "cycle completed" carries the jobRunId.
    int from = lines.indexOf(started);
    int to = lines.indexOf(completed);
    assertThat(lines.subList(from, to + 1))
        .allSatisfy(l -> assertThat(l).contains("\"jobRunId\":\"" + jobRunId + "\""));

    JarRunner.Run status = JarRunner.run(env, "status");
    assertThat(status.stdout()).doesNotContain(CANARY);
  }

  static String event(List<String> lines, String message) {
    return lines.stream()
        .filter(l -> l.contains("\"message\":\"" + message + "\""))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no '" + message + "' event in the output"));
  }

  @Test
  void status_names_the_run_lock_holder_the_backlog_and_poison_rows() throws Exception {
    rooms.exec("DELETE FROM messenger.conference_sessions");
    Instant now = Instant.now();
    rooms.insert(Rooms.emptyActive(now.minusSeconds(600)));
    rooms.insert(Rooms.emptyActive(now.minusSeconds(300)));
    Room poison = Rooms.provisioning(now.minusSeconds(900));
    rooms.insert(poison);
    rooms.exec(
        "UPDATE messenger.conference_sessions SET reaper_attempts = 3, reaper_last_error = '[23514] boom',"
            + " reaper_last_error_at = now() WHERE id = ?",
        poison.id);
    try (Connection holder =
        DriverManager.getConnection(
            server.jdbcUrl() + "?ApplicationName=hung-reaper", "postgres", "")) {
      holder.setAutoCommit(false);
      int pid;
      try (Statement st = holder.createStatement()) {
        st.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('messenger.conference_room_reaper', 0))");
        ResultSet rs = st.executeQuery("SELECT pg_backend_pid()");
        rs.next();
        pid = rs.getInt(1);
      }

      JarRunner.Split json = JarRunner.runSplit(JarRunner.database(server), "status", "--json");
      JarRunner.Run table = JarRunner.run(JarRunner.database(server), "status");
      holder.rollback();

      assertThat(json.exit()).as(json.stderr()).isZero();
      // For scripts: stdout is the document and nothing else; the log lines went to stderr.
      assertThat(json.stdout().strip().lines()).as(json.stdout()).hasSize(1);
      assertThat(json.stderr()).contains("\"@timestamp\"");
      String s = json.stdout().strip();
      assertThat(((Number) JsonPath.read(s, "$.phases.empty-room.due")).intValue()).isEqualTo(2);
      assertThat(((Number) JsonPath.read(s, "$.phases.empty-room.oldestDueAgeSeconds")).intValue())
          .isBetween(500, 560);
      assertThat(((Number) JsonPath.read(s, "$.phases.provision-timeout.due")).intValue())
          .isEqualTo(1);
      assertThat(((Number) JsonPath.read(s, "$.runLock.pid")).intValue()).isEqualTo(pid);
      assertThat((String) JsonPath.read(s, "$.runLock.application_name")).isEqualTo("hung-reaper");
      assertThat(((Number) JsonPath.read(s, "$.poisonCount")).intValue()).isEqualTo(1);
      assertThat((String) JsonPath.read(s, "$.poison[0].reaper_last_error"))
          .isEqualTo("[23514] boom");
      assertThat(table.stdout())
          .contains("run lock: held by pid " + pid + " ")
          .contains("hung-reaper")
          .contains("poison rows: 1")
          .contains(poison.id.toString());
    }
  }

  @Test
  void explain_says_which_phase_matches_and_who_holds_the_row() throws Exception {
    Instant now = Instant.now();
    Room room = rooms.insert(Rooms.emptyActive(now.minusSeconds(300)));
    try (Connection command =
        DriverManager.getConnection(
            server.jdbcUrl() + "?ApplicationName=join-command", "postgres", "")) {
      command.setAutoCommit(false);
      try (PreparedStatement ps =
          command.prepareStatement(
              "SELECT 1 FROM messenger.conference_sessions WHERE id = ? FOR UPDATE")) {
        ps.setObject(1, room.id);
        ps.executeQuery().close();
      }

      JarRunner.Split run =
          JarRunner.runSplit(JarRunner.database(server), "explain", room.id.toString(), "--json");
      JarRunner.Run human =
          JarRunner.run(JarRunner.database(server), "explain", room.id.toString());
      command.rollback();

      assertThat(run.exit()).as(run.stderr()).isZero();
      assertThat(run.stdout().strip().lines()).as(run.stdout()).hasSize(1);
      String e = run.stdout().strip();
      assertThat((String) JsonPath.read(e, "$.phases.empty-room")).startsWith("DUE since");
      assertThat((String) JsonPath.read(e, "$.phases.provision-timeout"))
          .startsWith("never: status is Active");
      assertThat((String) JsonPath.read(e, "$.phases.stale-live")).startsWith("due at");
      assertThat((Boolean) JsonPath.read(e, "$.rowLock.locked")).isTrue();
      assertThat((String) JsonPath.read(e, "$.rowLock.heldBy[0].application_name"))
          .isEqualTo("join-command");
      assertThat(human.stdout()).contains("row lock: HELD").contains("join-command");
    }
    JarRunner.Run missing =
        JarRunner.run(
            JarRunner.database(server), "explain", java.util.UUID.randomUUID().toString());
    assertThat(missing.exit()).isEqualTo(3);
    assertThat(missing.stdout()).contains("no conference");
  }
}
