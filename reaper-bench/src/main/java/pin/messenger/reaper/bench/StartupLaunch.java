package pin.messenger.reaper.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One way the start-up section starts the production worker, and one timed start of it: from just
 * before the process is created to its first {@code cycle completed} line (VmRSS read then, and
 * SIGTERM), or for run-once and the JDBC floor to its exit. Every start gets a clean environment:
 * the database, the java, nothing of the bench's own.
 */
record StartupLaunch(int jdk, How how, String java) {
  /** {@code bin/reaper}'s default JVM flags, for the {@code java -jar} path. */
  private static final List<String> WORKER_FLAGS =
      List.of(
          "-Xms64m",
          "-Xmx160m",
          "-XX:+UseSerialGC",
          "-XX:MaxMetaspaceSize=128m",
          "-Xss512k",
          "-Xlog:disable",
          "-Xlog:all=warning:stderr");

  private static final List<String> RUN = List.of("run", "--server.port=0");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  /** How a path starts the worker; the chart's categories, in order. */
  enum How {
    PACKED("java -jar (packed jar)"),
    NO_CACHE("bin/reaper, REAPER_CDS=off"),
    CACHE("bin/reaper with its cache"),
    RUN_ONCE("bin/reaper run-once, to exit"),
    JDBC("JDBC floor, to exit");

    final String label;

    How(String label) {
      this.label = label;
    }
  }

  /** One measured start: start to first cycle (or exit), and the resident set then (kB). */
  record Start(double millis, long rssKb, long rssAnonKb) {}

  String name() {
    String cache = jdk >= 25 ? "AOT cache" : "AppCDS";
    return switch (how) {
      case PACKED -> jdk + ": java -jar (packed)";
      case NO_CACHE -> jdk + ": bin/reaper, REAPER_CDS=off";
      case CACHE -> jdk + ": bin/reaper (" + cache + ")";
      case RUN_ONCE -> jdk + ": bin/reaper run-once (" + cache + ")";
      case JDBC -> jdk + ": JDBC floor (connect, one query, exit)";
    };
  }

  /** Timed to the process's exit rather than to its first cycle. */
  boolean toExit() {
    return how == How.RUN_ONCE || how == How.JDBC;
  }

  /** One start from {@code scratch} against {@code jdbcUrl}. */
  Start start(Launcher launcher, String jdbcUrl, Path scratch) throws Exception {
    List<String> command =
        switch (how) {
          case PACKED -> javaJar(launcher);
          case RUN_ONCE -> launcher.command(List.of("run-once"));
          case JDBC -> jdbcFloor(jdbcUrl, scratch);
          default -> launcher.command(RUN);
        };
    ProcessBuilder pb =
        new ProcessBuilder(command).directory(scratch.toFile()).redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().putAll(environment(jdbcUrl, scratch));
    if (toExit()) {
      Child.Exit exit = Child.toExit(pb, START_TIMEOUT);
      if (exit.status() != 0) {
        throw new IllegalStateException(name() + ": exit " + exit.status() + ":\n" + exit.output());
      }
      return new Start(exit.millis(), 0, 0);
    }
    CompletableFuture<Long> firstCycle = new CompletableFuture<>();
    long t0 = System.nanoTime();
    Process p = pb.start();
    ChildOutput out =
        ChildOutput.follow(
            p,
            "startup-stdout",
            (line, at) -> {
              if (line.contains(WorkerLog.CYCLE_COMPLETED)) {
                firstCycle.complete(at);
              }
            });
    try {
      CompletableFuture.anyOf(firstCycle, out.ended())
          .get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      // named below
    }
    try {
      if (!firstCycle.isDone()) {
        throw new IllegalStateException(
            name()
                + ": no 'cycle completed' log line within "
                + START_TIMEOUT.toSeconds()
                + " s (exit "
                + (p.isAlive() ? "none" : p.exitValue())
                + "); its last lines:\n"
                + out.tail());
      }
      Map<String, Long> status = Machine.procStatus(p.pid());
      return new Start(
          (firstCycle.get() - t0) / 1e6,
          status.getOrDefault("VmRSS", 0L),
          status.getOrDefault("RssAnon", 0L));
    } finally {
      Child.stop(p, Duration.ofSeconds(30));
      out.join(10_000);
    }
  }

  private List<String> javaJar(Launcher launcher) {
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(WORKER_FLAGS);
    command.addAll(List.of("-jar", launcher.workerJar().toString()));
    command.addAll(RUN);
    return command;
  }

  private Map<String, String> environment(String jdbcUrl, Path scratch) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("HOME", scratch.toString());
    env.put("SPRING_DATASOURCE_URL", jdbcUrl);
    env.put("SPRING_DATASOURCE_USERNAME", "postgres");
    env.put("REAPER_JAVA", java);
    if (how == How.NO_CACHE) {
      env.put("REAPER_CDS", "off");
    }
    return env;
  }

  /**
   * {@link JdbcFloor} with nothing but its own class (copied to {@code scratch}) and the driver's
   * jar on the class path.
   */
  private List<String> jdbcFloor(String jdbcUrl, Path scratch) throws Exception {
    Path classes = scratch.resolve("jdbc-floor");
    String name = JdbcFloor.class.getName().replace('.', '/') + ".class";
    Path file = classes.resolve(name);
    if (!Files.exists(file)) {
      Files.createDirectories(file.getParent());
      try (var in = JdbcFloor.class.getClassLoader().getResourceAsStream(name)) {
        Files.write(file, Objects.requireNonNull(in, name).readAllBytes());
      }
    }
    Path driver =
        Path.of(
            org.postgresql.Driver.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    return List.of(
        java,
        "-cp",
        classes + File.pathSeparator + driver,
        JdbcFloor.class.getName(),
        jdbcUrl,
        "postgres");
  }
}
