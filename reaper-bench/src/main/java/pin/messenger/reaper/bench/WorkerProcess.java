package pin.messenger.reaper.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The production jar's {@code run} as a child process, configured only by its command line (what an
 * operator sets), with the launcher's and the image's JVM flags and its INFO logging written to a
 * file. The benchmark reads the worker's {@code cycle completed} lines back from that file.
 */
final class WorkerProcess implements AutoCloseable {
  /** The JVM flags {@code bin/reaper} and the container image start the worker with. */
  static final List<String> JVM_FLAGS =
      List.of("-Xms64m", "-Xmx160m", "-XX:+UseSerialGC", "-XX:MaxMetaspaceSize=128m", "-Xss512k");

  /** One {@code cycle completed} line: when it was logged, how long it ran, what it closed. */
  record Cycle(Instant at, long durationMs, long closed) {}

  private final Process process;
  private final Path log;

  private WorkerProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * The production jar: {@code --worker-jar <path>}, else {@code
   * reaper-worker/target/conference-room-reaper.jar} under the working directory (the repository
   * root, where {@code bin/reaper} is run from).
   */
  static Path jar(List<String> args) {
    int at = args.indexOf("--worker-jar");
    if (at >= 0 && at + 1 >= args.size()) {
      throw new IllegalArgumentException("--worker-jar needs the path of the production jar");
    }
    Path jar =
        at >= 0
            ? Path.of(args.get(at + 1))
            : Path.of("reaper-worker", "target", "conference-room-reaper.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException(
          "sections limit and schedule run the production jar, which is not at "
              + jar.toAbsolutePath()
              + ": build it (./mvnw -B -pl reaper-worker -am package -DskipTests) or pass"
              + " --worker-jar <path>");
    }
    return jar;
  }

  /** Starts {@code java <flags> -jar <jar> run <options>} and waits for its first cycle. */
  static WorkerProcess start(Path jar, String jdbcUrl, List<String> options) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(JVM_FLAGS);
    command.addAll(List.of("-jar", jar.toAbsolutePath().toString(), "run"));
    command.add("--spring.datasource.url=" + jdbcUrl);
    command.add("--spring.datasource.username=postgres");
    command.add("--spring.datasource.password=");
    // Any free port: other processes on the machine may hold 8080.
    command.add("--server.port=0");
    command.addAll(options);
    Path log = Files.createTempFile("reaper-limit-worker", ".log");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    WorkerProcess worker = new WorkerProcess(p, log);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (worker.cycles().isEmpty()) {
      if (!p.isAlive() || System.nanoTime() - deadline > 0) {
        String tail = Child.tail(log);
        worker.close();
        throw new IllegalStateException(
            "the worker did not complete a first cycle (" + command + "):\n" + tail);
      }
      Thread.sleep(200);
    }
    return worker;
  }

  /** The worker's {@code cycle completed} lines so far. */
  List<Cycle> cycles() throws IOException {
    List<Cycle> cycles = new ArrayList<>();
    // Streamed: with a line per room the log reaches hundreds of MB, more than the bench's heap.
    try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
      lines
          .filter(l -> l.contains(WorkerLog.CYCLE_COMPLETED))
          .forEach(
              line ->
                  WorkerLog.timestamp(line)
                      .ifPresent(
                          at ->
                              cycles.add(
                                  new Cycle(
                                      at,
                                      WorkerLog.field(line, "durationMs"),
                                      WorkerLog.closed(line)))));
    }
    return cycles;
  }

  /** Lines of the log that say the worker fell behind its deadline, or failed. */
  long linesContaining(String text) throws IOException {
    try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines.filter(l -> l.contains(text)).count();
    }
  }

  /** SIGTERM, as a deployment stops it; killed if it has not stopped within a minute. */
  @Override
  public void close() throws IOException {
    Child.stop(process, Duration.ofMinutes(1));
    Files.deleteIfExists(log);
  }
}
