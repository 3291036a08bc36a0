package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the packaged jar through {@code bin/reaper} itself (unpacked, with the class-data archive),
 * in its own process, and captures what it printed. {@code bin/reaper} ends in {@code exec java},
 * so the process handed back is the worker's JVM: signals (kill -9, SIGSTOP) reach the worker, not
 * a shell.
 */
final class JarRunner {
  private static final Path LAUNCHER = Path.of("bin", "reaper").toAbsolutePath();

  /** The production jar, what the container image runs. */
  static final Path WORKER_JAR =
      Path.of("reaper-worker", "target", "conference-room-reaper.jar").toAbsolutePath();

  /** The development jar: embedded PostgreSQL default, demo. */
  static final Path DEV_JAR =
      Path.of("reaper-devtools", "target", "conference-room-reaper-dev.jar").toAbsolutePath();

  /**
   * The flags of every JVM the tests start: the black-box suite is CPU-bound, and C1 only with the
   * serial collector, methods compiled later (thresholds 3×) and never on stack replacement, cost a
   * short-lived start much less CPU than the JVM's defaults (docs/benchmarks.md). The worker's
   * behaviour is the same; the start-up cache is still used.
   */
  static final List<String> JVM =
      List.of(
          "-Xmx256m",
          "-XX:TieredStopAtLevel=1",
          "-XX:CompileThresholdScaling=3",
          "-XX:-UseOnStackReplacement",
          "-XX:+UseSerialGC");

  /** {@link #JVM} and more flags. */
  static List<String> jvm(String... more) {
    List<String> all = new ArrayList<>(JVM);
    all.addAll(List.of(more));
    return all;
  }

  /** A {@code java} command line with {@link #JVM}'s flags before {@code args}. */
  static List<String> java(String... args) {
    List<String> all = new ArrayList<>(List.of("java"));
    all.addAll(JVM);
    all.addAll(List.of(args));
    return all;
  }

  /** {@code command} as given, with {@link #JVM}'s flags after its first word when that is java. */
  static List<String> withTestFlags(List<String> command) {
    if (command.isEmpty() || !command.get(0).equals("java")) {
      return command;
    }
    List<String> all = java();
    all.addAll(command.subList(1, command.size()));
    return all;
  }

  private static boolean prepared;

  /** One run: exit code, everything printed, and the last line (the command's JSON result). */
  record Run(int exit, String stdout, String lastLine) {
    int json(String field) {
      return ((Number) JsonPath.read(lastLine, "$." + field)).intValue();
    }
  }

  private JarRunner() {}

  /**
   * {@code bin/reaper prepare worker} once per test JVM, before any worker starts: unpacking and
   * training the archive are then never raced by workers started together. Only the production
   * jar's: no test runs the development jar through the launcher's cache, and training it would
   * cost a training start's CPU while the other test JVM waits on the lock. Test JVMs run side by
   * side (the build's forks), so it runs under a file lock: the first JVM unpacks and trains, the
   * next finds the caches current and {@code prepare} returns at once.
   */
  private static synchronized void prepare() throws Exception {
    if (prepared) {
      return;
    }
    assertThat(WORKER_JAR).exists();
    assertThat(DEV_JAR).exists();
    Path lock = WORKER_JAR.resolveSibling(".reaper-prepare.lock");
    try (FileChannel channel =
            FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      prepareOnce();
    }
    prepared = true;
  }

  private static void prepareOnce() throws Exception {
    Path log = Files.createTempFile("reaper-prepare", ".log");
    Process p =
        new ProcessBuilder(LAUNCHER.toString(), "prepare", "worker")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    // Unpacking and training both caches: ~1 minute on 2 quiet cores, several under heavy load.
    assertThat(finished(p, 600)).as("bin/reaper prepare finished").isTrue();
    assertThat(p.exitValue()).as("bin/reaper prepare: " + Files.readString(log)).isZero();
    Files.delete(log);
  }

  private static ProcessBuilder launcher(
      Map<String, String> env, List<String> jvmOptions, String... args) throws Exception {
    prepare();
    List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    pb.environment().put("REAPER_JAVA_OPTS", String.join(" ", jvmOptions));
    return pb;
  }

  static Run run(Map<String, String> env, String... args) throws Exception {
    ProcessBuilder pb = launcher(env, JVM, args);
    Path log = Files.createTempFile("reaper-run", ".log");
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    boolean finished = finished(p, 180);
    String out = Files.readString(log, StandardCharsets.UTF_8);
    Files.delete(log);
    assertThat(finished).as("reaper finished: " + out).isTrue();
    String last = out.strip().lines().reduce((a, b) -> b).orElse("");
    return new Run(p.exitValue(), out, last);
  }

  /** One run with its two streams apart: what a script piping stdout sees. */
  record Split(int exit, String stdout, String stderr) {}

  static Split runSplit(Map<String, String> env, String... args) throws Exception {
    return runSplit(env, JVM, args);
  }

  /** {@link #runSplit(Map, String...)} with the JVM's flags. */
  static Split runSplit(Map<String, String> env, List<String> jvmOptions, String... args)
      throws Exception {
    ProcessBuilder pb = launcher(env, jvmOptions, args).redirectErrorStream(false);
    Path out = Files.createTempFile("reaper-stdout", ".log");
    Path err = Files.createTempFile("reaper-stderr", ".log");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    boolean finished = finished(p, 180);
    Split split =
        new Split(
            finished ? p.exitValue() : -1,
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    Files.delete(out);
    Files.delete(err);
    assertThat(finished).as("reaper finished: " + split).isTrue();
    return split;
  }

  /**
   * Waits up to {@code seconds} for {@code p}; one that has not finished by then is killed with
   * every process it started (bin/reaper execs the JVM, which may have children), so a test's
   * timeout never leaves a hung worker behind.
   */
  static boolean finished(Process p, long seconds) throws InterruptedException {
    if (p.waitFor(seconds, TimeUnit.SECONDS)) {
      return true;
    }
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    p.waitFor(10, TimeUnit.SECONDS);
    return false;
  }

  static Map<String, String> database(PostgresServer server) {
    return Map.of(
        "SPRING_DATASOURCE_URL", server.jdbcUrl(),
        "SPRING_DATASOURCE_USERNAME", "postgres",
        "SPRING_DATASOURCE_PASSWORD", "");
  }

  /**
   * Starts a command of the packaged jar as bin/reaper does (e.g. the long-running {@code run}) and
   * returns at once; stdout and stderr go to {@code output} (appended), which the caller reads. A
   * file, not a pipe: nothing the process printed is lost when it is killed, and a frozen reader
   * never blocks the process.
   */
  static Process start(
      Map<String, String> env, List<String> jvmOptions, Path output, String... args)
      throws Exception {
    ProcessBuilder pb = launcher(env, jvmOptions, args);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
    return pb.start();
  }
}
