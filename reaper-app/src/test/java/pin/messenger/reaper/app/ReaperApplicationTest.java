package pin.messenger.reaper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import pin.messenger.reaper.app.cli.ReaperCli;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.InvalidOptionsException;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TestDatabase;

/** The Spring edge: binding, validation at start-up, schema checks and the CLI commands. */
class ReaperApplicationTest {
  static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create();
  }

  @AfterAll
  static void close() {
    db.close();
  }

  List<String> datasource(TestDatabase database) {
    return new ArrayList<>(
        List.of(
            "--spring.datasource.url=" + database.url(),
            "--spring.datasource.username=" + database.user(),
            "--spring.datasource.password=" + database.password()));
  }

  ConfigurableApplicationContext start(Map<String, Object> env, String... args) {
    List<String> all = datasource(db);
    all.addAll(List.of(args));
    all.add("--reaper.command=run-once");
    return new SpringApplicationBuilder(ReaperApplication.class)
        .web(WebApplicationType.NONE)
        .initializers(
            ctx ->
                ctx.getEnvironment()
                    .getPropertySources()
                    .addLast(new SystemEnvironmentPropertySource("test-systemEnvironment", env)))
        .run(all.toArray(String[]::new));
  }

  @Test
  void options_bind_from_relaxed_environment_variables() {
    try (ConfigurableApplicationContext ctx =
        start(
            Map.of(
                "REAPER_BATCH_SIZE",
                "7",
                "REAPER_EMPTY_ROOM_GRACE",
                "45s",
                "REAPER_DRAIN_ENABLED",
                "true"))) {
      ConferenceRoomReaperOptions options = ctx.getBean(ConferenceRoomReaperOptions.class);
      assertThat(options.batchSize()).isEqualTo(7);
      assertThat(options.emptyRoomGrace()).isEqualTo(Duration.ofSeconds(45));
      assertThat(options.drain().enabled()).isTrue();
      assertThat(options.staleLiveTimeout()).isEqualTo(Duration.ofHours(4));
    }
  }

  @Test
  void invalid_options_stop_start_up_naming_each_property_and_value() {
    assertThatThrownBy(
            () -> start(Map.of(), "--reaper.batch-size=0", "--reaper.max-run-duration=5m").close())
        .hasRootCauseInstanceOf(InvalidOptionsException.class)
        .rootCause()
        .hasMessageContaining("reaper.batch-size must be between 1 and 10000 but was 0")
        .hasMessageContaining(
            "reaper.max-run-duration must be shorter than reaper.lock-ttl (PT2M) but was PT5M");
  }

  @Test
  void with_migrations_off_start_up_fails_naming_what_the_schema_lacks() {
    try (TestDatabase bare = TestDatabase.create(false)) {
      new Rooms(bare.dataSource()).exec("CREATE SCHEMA messenger");
      new Rooms(bare.dataSource())
          .exec("CREATE TABLE messenger.conference_sessions (id uuid PRIMARY KEY, status text)");
      List<String> args = datasource(bare);
      args.addAll(List.of("--reaper.schema.migrate=false", "--reaper.command=run-once"));
      assertThatThrownBy(
              () ->
                  new SpringApplicationBuilder(ReaperApplication.class)
                      .web(WebApplicationType.NONE)
                      .run(args.toArray(String[]::new))
                      .close())
          .rootCause()
          .hasMessageContaining("messenger.conference_sessions.chat_id")
          .hasMessageContaining("messenger.realtime_outbox.kind")
          .hasMessageContaining("index messenger.ix_conf_active")
          .hasMessageContaining("messenger.conference_sessions.reaper_window_start")
          .hasMessageContaining("index messenger.ix_conf_due")
          .hasMessageContaining("index messenger.ix_conf_backoff")
          .hasMessageNotContaining("messenger.conference_sessions.status,");
    }
  }

  static Rooms emptyDatabase() {
    Rooms rooms = new Rooms(db.dataSource());
    rooms.truncateAll();
    return rooms;
  }

  @Test
  void run_once_prints_the_cycle_counters_as_the_last_stdout_line() {
    Rooms rooms = emptyDatabase();
    rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(600)));
    rooms.insert(Rooms.provisioning(Instant.now().minusSeconds(600)));
    List<String> args = new ArrayList<>(List.of("run-once"));
    args.addAll(datasource(db));

    String out =
        captureStdout(() -> assertThat(ReaperCli.run(args.toArray(String[]::new))).isZero());

    String last = out.strip().lines().reduce((a, b) -> b).orElseThrow();
    assertThat(last)
        .startsWith("{\"jobRunId\":")
        .contains("\"lockAcquired\":true")
        .contains("\"emptyTimeout\":1")
        .contains("\"provisionFailed\":1")
        .contains("\"staleTimeout\":0")
        .contains("\"skippedLocked\":0")
        .contains("\"failed\":0")
        .contains("\"durationMs\":");
  }

  @Test
  void run_once_dry_run_changes_nothing() {
    Rooms rooms = emptyDatabase();
    var room = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(600)));
    List<String> args = new ArrayList<>(List.of("run-once", "--dry-run"));
    args.addAll(datasource(db));

    String out =
        captureStdout(() -> assertThat(ReaperCli.run(args.toArray(String[]::new))).isZero());

    assertThat(out.strip().lines().reduce((a, b) -> b).orElseThrow())
        .contains("\"dryRun\":true")
        .contains("\"emptyTimeout\":1");
    assertThat(rooms.status(room.id)).isEqualTo("Active");
  }

  @Test
  void unknown_command_and_stray_arguments_are_refused_with_usage() {
    assertThat(ReaperCli.run(new String[] {"reap-everything"})).isEqualTo(2);
    assertThat(ReaperCli.run(new String[] {"run-once", "--dry"})).isEqualTo(2);
  }

  @Test
  void the_production_cli_has_no_demo_however_well_formed_its_arguments() {
    // A valid duration: the only reason left to refuse it is that demo is bin/reaper's
    // (reaper-devtools' DevLauncherTest tests its parsing there).
    String[] demo = {"demo", "--duration", "60s"};
    String stderr = captureStderr(() -> assertThat(ReaperCli.run(demo)).isEqualTo(2));
    assertThat(stderr)
        .contains("unknown command 'demo'")
        .doesNotContain("Development launcher")
        .doesNotContain("demo [--duration");
  }

  static String captureStderr(Runnable action) {
    PrintStream original = System.err;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }

  static String captureStdout(Runnable action) {
    PrintStream original = System.out;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setOut(original);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }
}
