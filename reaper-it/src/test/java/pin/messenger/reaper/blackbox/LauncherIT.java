package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bin/reaper} as a newcomer or an operator runs it, with nothing configured: a command that
 * fails closed fails before any step that starts a database (the start-up cache's training starts
 * one), and {@code help} describes the launcher, not only the production jar.
 *
 * <p>Each test runs a copy of {@code bin/reaper} in a scratch root whose {@code
 * reaper-worker/target} and {@code reaper-devtools/target} hold links to the packaged jars: what
 * the launcher unpacks or trains lands in the scratch root, where the test looks for it, and never
 * in the shared build.
 */
class LauncherIT {
  private static final String NO_DATABASE = "no database configured: set SPRING_DATASOURCE_URL";

  private Path root;
  private Path cwd;

  @BeforeEach
  void scratchRoot() throws Exception {
    assertThat(JarRunner.WORKER_JAR).exists();
    assertThat(JarRunner.DEV_JAR).exists();
    root = Files.createTempDirectory("launcher-root");
    Files.createDirectories(root.resolve("bin"));
    Files.copy(Path.of("bin", "reaper"), root.resolve("bin/reaper"));
    for (Path jar : List.of(JarRunner.WORKER_JAR, JarRunner.DEV_JAR)) {
      Path target = root.resolve(jar.getParent().getParent().getFileName()).resolve("target");
      Files.createDirectories(target);
      Files.createSymbolicLink(target.resolve(jar.getFileName()), jar);
    }
    cwd = Files.createDirectory(root.resolve("cwd"));
  }

  @AfterEach
  void removeScratchRoot() {
    PostgresServer.deleteQuietly(root);
  }

  /**
   * {@code bin/reaper args} in a clean environment (PATH, HOME and the tests' JVM flags only, plus
   * {@code env}), from a working directory of its own.
   */
  private ScratchRun.Result launcher(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(root.resolve("bin/reaper").toString()));
    command.addAll(List.of(args));
    Map<String, String> environment = new HashMap<>();
    environment.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    environment.put("HOME", cwd.toString());
    // The flags of every JVM the tests start (CPU, not behaviour); the launcher passes them on.
    environment.put("REAPER_JAVA_OPTS", String.join(" ", JarRunner.JVM));
    environment.putAll(env);
    return ScratchRun.run(cwd, root, environment, command);
  }

  /**
   * Nothing was unpacked or trained (the training writes its log and cache into {@code
   * target/reaper}) and no development database directory was made.
   */
  private void nothingPrepared() throws Exception {
    assertThat(root.resolve("reaper-worker/target/reaper"))
        .as("no unpacked worker, no training log, no cache")
        .doesNotExist();
    assertThat(root.resolve("reaper-devtools/target/reaper"))
        .as("no unpacked development jar, no training log, no cache")
        .doesNotExist();
    try (Stream<Path> files = Files.list(cwd)) {
      assertThat(files).as("no .reaper/pgdata or anything else in the working directory").isEmpty();
    }
  }

  private static void failedClosed(ScratchRun.Result r) {
    assertThat(r.exit()).as(r.stderr()).isEqualTo(78);
    assertThat(r.stderr().strip().lines()).as("one line on stderr: " + r.stderr()).hasSize(1);
    assertThat(r.stderr()).contains(NO_DATABASE).contains("nothing was started");
    assertThat(r.stdout()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "status",
        "status --json",
        "explain 7c0a1b2e-0000-4000-8000-000000000001",
        "pause --reason maintenance",
        "resume",
        "retry --poison",
        "requeue --kafka-quarantined",
        "end 7c0a1b2e-0000-4000-8000-000000000001 --reason poison",
        "audit"
      })
  void a_command_that_fails_closed_trains_nothing_and_starts_no_database(String commandLine)
      throws Exception {
    ScratchRun.Result r = launcher(Map.of(), commandLine.split(" "));

    failedClosed(r);
    nothingPrepared();
  }

  @ParameterizedTest
  @ValueSource(strings = {"run", "run-once", "migrate", "status"})
  void an_empty_datasource_url_is_no_database_and_fails_closed(String command) throws Exception {
    ScratchRun.Result r = launcher(Map.of("SPRING_DATASOURCE_URL", ""), command, "--server.port=0");

    failedClosed(r);
    nothingPrepared();
  }

  @Test
  void a_blank_datasource_url_option_is_no_database_either() throws Exception {
    ScratchRun.Result r = launcher(Map.of(), "run-once", "--spring.datasource.url= ");

    failedClosed(r);
    nothingPrepared();
  }

  @ParameterizedTest
  @ValueSource(strings = {"help", "-h", "--help"})
  void help_lists_the_launchers_own_commands_and_its_database_rule(String help) throws Exception {
    ScratchRun.Result r = launcher(Map.of(), help);

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stdout())
        .startsWith("usage: bin/reaper <command>")
        .contains("run-once [--dry-run]", "status [--json]", "audit [--limit N]")
        .contains("demo [--duration 60s]", "bench [--quick]", "prepare", "which-java")
        .contains("run, run-once and migrate start an embedded PostgreSQL")
        .doesNotContain("every command but help exits");
    assertThat(r.stderr()).as("nothing built, unpacked or trained").isEmpty();
    nothingPrepared();
  }
}
