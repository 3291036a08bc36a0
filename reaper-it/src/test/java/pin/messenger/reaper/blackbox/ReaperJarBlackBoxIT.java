package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * From outside: the packaged jar, as {@code bin/reaper} runs it, against a separate PostgreSQL
 * server (17 unless told otherwise, see {@link #server}). {@code migrate}, then {@code run-once}
 * over every row of the spec's Tests table, a poison row, a row a command holds, a held run lock
 * and the batch bound.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReaperJarBlackBoxIT {
  static PostgresServer server;
  static DataSource dataSource;
  static Rooms rooms;

  /** The newest version of the matrix, what these scenarios run on unless told otherwise. */
  static final String NEWEST = "17";

  /**
   * The server the scenarios run against: a subclass annotated {@link PostgresServer.Version} picks
   * a PostgreSQL major version (ReaperJarBlackBoxPg13IT, the oldest supported); otherwise the one
   * REAPER_BLACKBOX_PG / -Dreaper.blackbox.pg names (ops/pg-matrix.sh), else the newest, 17. The
   * other black-box tests run on Debian's 15 where it is installed.
   */
  @BeforeAll
  static void server(TestInfo info) throws Exception {
    PostgresServer.Version version =
        info.getTestClass().orElseThrow().getAnnotation(PostgresServer.Version.class);
    String major =
        version != null
            ? version.value()
            : PostgresServer.selected() != null ? PostgresServer.selected() : NEWEST;
    server = PostgresServer.start(major);
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(server.jdbcUrl());
    ds.setUser("postgres");
    dataSource = ds;
    rooms = new Rooms(dataSource);
    System.out.println(
        "black-box server: "
            + server.version
            + " (server_version "
            + server.serverVersion
            + ") at "
            + server.jdbcUrl());
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  static JarRunner.Run reaper(String... args) throws Exception {
    return JarRunner.run(JarRunner.database(server), args);
  }

  static int json(JarRunner.Run run, String field) {
    return run.json(field);
  }

  @Test
  @Order(1)
  void migrate_creates_the_schema_on_a_fresh_server() throws Exception {
    JarRunner.Run run = reaper("migrate");

    assertThat(run.exit()).as(run.stdout()).isZero();
    assertThat(run.lastLine()).contains("\"migrated\":true").contains("\"schemaVersion\":\"8\"");
    assertThat(rooms.count("SELECT count(*) FROM pg_indexes WHERE indexname = 'ix_conf_active'"))
        .isEqualTo(1);
  }

  @Test
  @Order(2)
  void run_once_is_skipped_while_another_runner_holds_the_run_lock() throws Exception {
    Room due = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(600)));
    try (Connection other = DriverManager.getConnection(server.jdbcUrl(), "postgres", "")) {
      other.setAutoCommit(false);
      try (Statement st = other.createStatement()) {
        st.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('messenger.conference_room_reaper', 0))");
      }
      JarRunner.Run run = reaper("run-once");

      assertThat(run.exit()).as(run.stdout()).isZero();
      assertThat(run.lastLine()).contains("\"lockAcquired\":false");
      assertThat(rooms.status(due.id)).isEqualTo("Active");
      other.rollback();
    }
    rooms.exec("DELETE FROM messenger.conference_sessions");
  }

  @Test
  @Order(3)
  void run_once_does_what_the_spec_says_for_every_row_of_its_tests_table() throws Exception {
    Instant now = Instant.now();
    Room empty = rooms.insert(Rooms.emptyActive(now.minusSeconds(120)));
    rooms.join(empty.id, empty.startedBy, empty.startedAt);
    Room joined = rooms.insert(Rooms.occupied(now.minusSeconds(120), 1));
    Room provisioning = rooms.insert(Rooms.provisioning(now.minusSeconds(180)));
    Room stale = rooms.insert(Rooms.occupied(now.minus(Duration.ofHours(5)), 2));
    Room recorded = rooms.insert(Rooms.emptyActive(now.minusSeconds(150)));
    var recording = rooms.recording(recorded.id, "Recording", recorded.startedAt);
    Room endedByCommand = Rooms.ended(now.minusSeconds(5));
    rooms.insert(endedByCommand);
    Room poison = Rooms.emptyActive(now.minusSeconds(300));
    poison.startedAt = null;
    rooms.insert(poison);
    Room locked = rooms.insert(Rooms.emptyActive(now.minusSeconds(400)));

    JarRunner.Run run;
    try (Connection command = DriverManager.getConnection(server.jdbcUrl(), "postgres", "")) {
      command.setAutoCommit(false);
      try (PreparedStatement ps =
          command.prepareStatement(
              "SELECT 1 FROM messenger.conference_sessions WHERE id = ? FOR UPDATE")) {
        ps.setObject(1, locked.id);
        ps.executeQuery().close();
      }
      run = reaper("run-once");
      command.rollback();
    }

    assertThat(run.exit()).as(run.stdout()).isZero();
    assertThat(json(run, "emptyTimeout")).isEqualTo(2);
    assertThat(json(run, "provisionFailed")).isEqualTo(1);
    assertThat(json(run, "staleTimeout")).isEqualTo(1);
    assertThat(json(run, "skippedLocked")).isEqualTo(1);
    assertThat(json(run, "failed")).isEqualTo(1);
    assertThat(rooms.row(empty.id))
        .containsEntry("status", "Ended")
        .containsEntry("end_reason", "EmptyTimeout");
    assertThat(rooms.status(joined.id)).isEqualTo("Active");
    assertThat(rooms.row(provisioning.id))
        .containsEntry("status", "Failed")
        .containsEntry("end_reason", "Error");
    assertThat(rooms.row(stale.id))
        .containsEntry("status", "Ended")
        .containsEntry("end_reason", "Timeout");
    assertThat(rooms.row(endedByCommand.id)).containsEntry("end_reason", "Completed");
    assertThat(rooms.status(locked.id)).isEqualTo("Active");
    assertThat(rooms.row(poison.id)).containsEntry("status", "Active");
    assertThat((String) rooms.row(poison.id).get("reaper_last_error"))
        .contains("started_at is null");
    assertThat(run.stdout()).contains("item failed").contains(poison.id.toString());
    // conference-ended for the three Active → Ended closes only; realtime rows for all four closes.
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(3);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE message_key = ?",
                provisioning.dealId.toString()))
        .isZero();
    assertThat(rooms.count("SELECT count(*) FROM messenger.realtime_outbox")).isEqualTo(4);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.recorder_stop_requests WHERE recording_id = ?",
                recording))
        .isEqualTo(1);

    // Idempotency: a repeated cycle closes only the row that was locked, and emits nothing twice.
    JarRunner.Run again = reaper("run-once");
    assertThat(json(again, "emptyTimeout")).isEqualTo(1);
    assertThat(json(again, "provisionFailed") + json(again, "staleTimeout")).isZero();
    assertThat(rooms.status(locked.id)).isEqualTo("Ended");
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(4);
    assertThat(
            rooms.count(
                "SELECT count(DISTINCT payload->>'conferenceId') FROM messenger.integration_outbox"))
        .isEqualTo(4);
  }

  @Test
  @Order(4)
  void run_once_closes_at_most_batch_size_rooms_per_phase() throws Exception {
    rooms.exec("DELETE FROM messenger.conference_sessions");
    Instant now = Instant.now();
    for (int i = 0; i < 4; i++) {
      rooms.insert(Rooms.emptyActive(now.minusSeconds(200 + i)));
    }

    JarRunner.Run first = reaper("run-once", "--reaper.batch-size=3");
    JarRunner.Run second = reaper("run-once", "--reaper.batch-size=3");

    assertThat(json(first, "emptyTimeout")).as(first.stdout()).isEqualTo(3);
    assertThat(json(second, "emptyTimeout")).isEqualTo(1);
  }

  @Test
  @Order(5)
  void invalid_configuration_is_refused_at_start_naming_the_property() throws Exception {
    JarRunner.Run run = reaper("run-once", "--reaper.empty-room-grace=5h");

    assertThat(run.exit()).isNotZero();
    assertThat(run.stdout())
        .contains(
            "reaper.empty-room-grace must be shorter than reaper.stale-live-timeout (PT4H) but was PT5H");
  }
}
