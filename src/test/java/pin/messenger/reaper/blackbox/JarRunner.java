package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the packaged jar as bin/reaper does, in its own process, and captures what it printed. */
final class JarRunner {
  /** One run: exit code, everything printed, and the last line (the command's JSON result). */
  record Run(int exit, String stdout, String lastLine) {
    int json(String field) {
      return ((Number) JsonPath.read(lastLine, "$." + field)).intValue();
    }
  }

  private JarRunner() {}

  static Run run(Map<String, String> env, String... args) throws Exception {
    Path jar = Path.of("target", "conference-room-reaper.jar");
    assertThat(jar).exists();
    List<String> command = new ArrayList<>(List.of("java", "-Xmx256m", "-jar", jar.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    Path log = Files.createTempFile("reaper-run", ".log");
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("reaper finished").isTrue();
    String out = Files.readString(log, StandardCharsets.UTF_8);
    String last = out.strip().lines().reduce((a, b) -> b).orElse("");
    return new Run(p.exitValue(), out, last);
  }

  static Map<String, String> database(PostgresServer server) {
    return Map.of(
        "SPRING_DATASOURCE_URL", server.jdbcUrl(),
        "SPRING_DATASOURCE_USERNAME", "postgres",
        "SPRING_DATASOURCE_PASSWORD", "");
  }

  /**
   * Starts a command of the packaged jar as bin/reaper does (e.g. the long-running {@code run}) and returns at once;
   * stdout and stderr go to {@code output} (appended), which the caller reads. A file, not a pipe: nothing the
   * process printed is lost when it is killed, and a frozen reader never blocks the process.
   */
  static Process start(Map<String, String> env, List<String> jvmOptions, Path output, String... args)
      throws Exception {
    Path jar = Path.of("target", "conference-room-reaper.jar");
    assertThat(jar).exists();
    List<String> command = new ArrayList<>(List.of("java"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
    pb.environment().putAll(env);
    return pb.start();
  }
}
