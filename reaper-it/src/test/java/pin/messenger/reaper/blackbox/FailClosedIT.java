package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A pod whose database secret is missing must not run: the production jar refuses every command
 * that needs the database, with one line naming SPRING_DATASOURCE_URL and exit status 78, before
 * anything starts. The development launcher starts its embedded database only for run / run-once /
 * migrate, and says so first, in text.
 */
class FailClosedIT {
  /**
   * Runs a command in a scratch directory with a clean environment (no SPRING_* or REAPER_* from
   * the caller), with the tests' JVM flags.
   */
  private static ScratchRun.Result run(Path dir, List<String> command) throws Exception {
    return run(dir, Map.of(), command);
  }

  /** As above, with {@code extra} added to the clean environment. */
  private static ScratchRun.Result run(Path dir, Map<String, String> extra, List<String> command)
      throws Exception {
    return ScratchRun.run(dir, extra, JarRunner.withTestFlags(command));
  }

  /**
   * Scratch directories of the running test, removed after it (the dev jar's runs leave a
   * database).
   */
  private final List<Path> scratch = new ArrayList<>();

  private Path scratch(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    scratch.add(dir);
    return dir;
  }

  @AfterEach
  void removeScratch() {
    scratch.forEach(PostgresServer::deleteQuietly);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket("127.0.0.1", port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "run",
        "run-once",
        "migrate",
        "status",
        "explain 7c0a1b2e-0000-4000-8000-000000000001"
      })
  void the_production_jar_refuses_to_start_without_a_database(String commandLine) throws Exception {
    Path dir = scratch("fail-closed");
    int port = freePort();
    List<String> command =
        new ArrayList<>(List.of("java", "-jar", JarRunner.WORKER_JAR.toString()));
    command.addAll(List.of(commandLine.split(" ")));
    command.add("--server.port=" + port);

    ScratchRun.Result r = run(dir, command);

    assertThat(r.exit()).as(r.stderr()).isEqualTo(78);
    assertThat(r.stderr().strip().lines()).as("one line").hasSize(1);
    assertThat(r.stderr()).contains("SPRING_DATASOURCE_URL").contains("nothing was started");
    assertThat(r.stdout()).as("no application started, so no log line").isEmpty();
    assertThat(listening(port)).isFalse();
    try (var files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .as("no database directory made")
          .containsExactlyInAnyOrder("stdout.txt", "stderr.txt");
    }
  }

  @Test
  void the_development_launcher_never_starts_a_database_for_status() throws Exception {
    Path dir = scratch("fail-closed-dev");
    ScratchRun.Result r =
        run(
            dir,
            List.of(
                "java",
                "-jar",
                JarRunner.DEV_JAR.toString(),
                "status",
                "--reaper.embedded.data-dir=" + dir.resolve("pg")));

    assertThat(r.exit()).as(r.stderr()).isEqualTo(78);
    assertThat(r.stderr()).contains("SPRING_DATASOURCE_URL");
    assertThat(dir.resolve("pg")).doesNotExist();
  }

  /**
   * The development launcher speaks to a person: its console is text, its first line says that it
   * starts an embedded database, and initdb's and the server's own output stay out of it (in the
   * file beside the data). Spring Boot's {@code logging.structured.format.console=ecs} (here as its
   * environment variable) makes it ECS JSON, as the production jar writes.
   */
  @Test
  void the_development_launcher_announces_its_embedded_database_in_a_readable_console()
      throws Exception {
    Path dir = scratch("dev-run-once");
    List<String> runOnce =
        List.of(
            "java",
            "-jar",
            JarRunner.DEV_JAR.toString(),
            "run-once",
            "--reaper.embedded.data-dir=" + dir.resolve("pg"));
    ScratchRun.Result r = run(dir, runOnce);

    assertThat(r.exit()).as(r.stdout() + r.stderr()).isZero();
    String first = r.stdout().lines().findFirst().orElse("");
    assertThat(first)
        .contains("WARN", "development mode", "embedded PostgreSQL")
        .doesNotStartWith("{");
    assertThat(r.stdout())
        .as("the cycle ran on it, logged as text")
        .contains(": cycle completed lockAcquired=\"true\"")
        .as("initdb's and the server's output are not in the console")
        .doesNotContain("initdb", "database system is ready");
    assertThat(Files.readString(dir.resolve("pg.log"))).contains("database system is ready");

    ScratchRun.Result json = run(dir, Map.of("LOGGING_STRUCTURED_FORMAT_CONSOLE", "ecs"), runOnce);

    assertThat(json.exit()).as(json.stdout() + json.stderr()).isZero();
    assertThat(json.stdout().lines())
        .as("every line a JSON document")
        .allSatisfy(line -> assertThat(line).startsWith("{").endsWith("}"));
    assertThat(json.stdout().lines().findFirst().orElse(""))
        .contains("\"log\":{\"level\":\"WARN\"", "development mode");
  }

  /**
   * An exported but empty (or blank) SPRING_DATASOURCE_URL, e.g. from a secret key that is missing,
   * names no database: both jars fail closed as without it; the development jar does not start its
   * embedded database for it either (the user meant a real one).
   */
  @ParameterizedTest
  @CsvSource({
    "worker, run, ''",
    "worker, run-once, ' '",
    "dev, run, ''",
    "dev, run-once, ''",
    "dev, migrate, ' '",
    "dev, status, ''"
  })
  void an_empty_datasource_url_fails_closed_in_both_jars(String jar, String command, String url)
      throws Exception {
    Path dir = scratch("fail-closed-empty");
    Path jarPath = jar.equals("worker") ? JarRunner.WORKER_JAR : JarRunner.DEV_JAR;
    int port = freePort();
    ScratchRun.Result r =
        run(
            dir,
            Map.of("SPRING_DATASOURCE_URL", url),
            List.of(
                "java",
                "-jar",
                jarPath.toString(),
                command,
                "--server.port=" + port,
                "--reaper.embedded.data-dir=" + dir.resolve("pg")));

    assertThat(r.exit()).as(r.stdout() + r.stderr()).isEqualTo(78);
    assertThat(r.stderr().strip().lines()).as("one line: " + r.stderr()).hasSize(1);
    assertThat(r.stderr()).contains("SPRING_DATASOURCE_URL").contains("nothing was started");
    assertThat(r.stdout()).isEmpty();
    assertThat(dir.resolve("pg")).as("no embedded database").doesNotExist();
    assertThat(listening(port)).isFalse();
  }

  @Test
  void an_empty_datasource_url_option_fails_closed_in_the_development_jar() throws Exception {
    Path dir = scratch("fail-closed-empty-option");
    ScratchRun.Result r =
        run(
            dir,
            List.of(
                "java",
                "-jar",
                JarRunner.DEV_JAR.toString(),
                "run-once",
                "--spring.datasource.url=",
                "--reaper.embedded.data-dir=" + dir.resolve("pg")));

    assertThat(r.exit()).as(r.stdout() + r.stderr()).isEqualTo(78);
    assertThat(r.stderr()).contains("SPRING_DATASOURCE_URL");
    assertThat(dir.resolve("pg")).doesNotExist();
  }

  /**
   * The production jar's help is about the production jar: how it is started, its commands only,
   * and its rule (every command but help needs the database).
   */
  @ParameterizedTest
  @ValueSource(strings = {"help", "-h", "--help"})
  void the_production_jars_help_describes_the_production_jar(String help) throws Exception {
    Path dir = scratch("worker-help");
    ScratchRun.Result r = run(dir, List.of("java", "-jar", JarRunner.WORKER_JAR.toString(), help));

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stderr()).isEmpty();
    assertThat(r.stdout())
        .startsWith("usage: java -jar conference-room-reaper.jar <command>")
        .contains("run-once [--dry-run]", "status [--json]", "audit [--limit N]")
        .contains("without it every command but help exits with status 78")
        .doesNotContain("demo [", "bench [", "prepare", "which-java", "bin/reaper");
  }
}
