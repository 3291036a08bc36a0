package pin.messenger.reaper.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The repository's {@code bin/reaper} and the production jar it starts: found in the working
 * directory or one of its parents ({@code bin/reaper bench} runs from the repository root).
 */
record Launcher(Path root) {
  static final String WORKER_JAR = "reaper-worker/target/conference-room-reaper.jar";

  /** The launcher with a built production jar; {@code section} names who asked, for the error. */
  static Launcher find(String section) {
    return find(section, Path.of("").toAbsolutePath());
  }

  /** The launcher in {@code from} or the nearest of its parents that has one. */
  static Launcher find(String section, Path from) {
    for (Path dir = from; dir != null; dir = dir.getParent()) {
      if (Files.isExecutable(dir.resolve("bin/reaper"))
          && Files.isRegularFile(dir.resolve(WORKER_JAR))) {
        return new Launcher(dir);
      }
    }
    throw new IllegalStateException(
        "--only "
            + section
            + ": no bin/reaper with a built production jar ("
            + WORKER_JAR
            + ") in the working directory or its parents; run `bin/reaper bench` from the"
            + " repository root");
  }

  Path bin() {
    return root.resolve("bin/reaper");
  }

  Path workerJar() {
    return root.resolve(WORKER_JAR);
  }

  /** {@code bin/reaper <args>}. */
  List<String> command(List<String> args) {
    List<String> command = new ArrayList<>(List.of(bin().toString()));
    command.addAll(args);
    return command;
  }

  /**
   * {@code bin/reaper <args>} against {@code jdbcUrl}, in the bench's environment without the knobs
   * that would change what is measured (JVM flags, cache off, log levels).
   */
  ProcessBuilder worker(String jdbcUrl, List<String> args) {
    ProcessBuilder pb = new ProcessBuilder(command(args));
    Map<String, String> env = pb.environment();
    env.keySet()
        .removeIf(
            k ->
                k.startsWith("SPRING_")
                    || k.startsWith("LOGGING_")
                    || k.startsWith("REAPER_")
                    || k.equals("JAVA_TOOL_OPTIONS")
                    || k.equals("JDK_JAVA_OPTIONS"));
    env.put("SPRING_DATASOURCE_URL", jdbcUrl);
    return pb;
  }

  /**
   * {@code bin/reaper prepare} in {@code pb}'s environment: unpacks the jars and trains their
   * start-up caches now, not inside the first measurement.
   */
  void prepare(ProcessBuilder pb, Path log) throws IOException, InterruptedException {
    Child.run(pb.command(command(List.of("prepare"))), log, Duration.ofMinutes(10));
  }
}
