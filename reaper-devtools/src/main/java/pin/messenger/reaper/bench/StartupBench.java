package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * Section 6: start to first cycle by launch path and JDK. Every launch path starts the production
 * worker ({@code run}) as a process of its own against a database of the bench's server that no
 * other section touches (1,000 live rooms, nothing due), from the repository root: {@code java
 * -jar} on the packed jar, and {@code bin/reaper} (the jar unpacked, with the start-up cache it
 * picks for the JDK: an AppCDS archive on 17, an AOT cache on 25, none with {@code
 * REAPER_CDS=off}). A start is timed from just before the process is created to its first {@code
 * cycle completed} log line; the process's {@code VmRSS} is read right then, and it is stopped with
 * SIGTERM. Per JDK two more paths are timed from process start to exit: {@code bin/reaper run-once}
 * as it ships (nothing due) and its floor, {@link JdbcFloor} (connect, one query, exit) with only
 * the driver on the class path. One unmeasured round first (the launcher unpacks and trains what is
 * missing, the page cache fills), then rounds in which the paths take turns, the order rotated each
 * round.
 */
final class StartupBench {
  /** {@code bin/reaper}'s default JVM flags, for the {@code java -jar} paths. */
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
  private static final String CYCLE_COMPLETED = "\"message\":\"cycle completed\"";
  private static final long START_TIMEOUT_SECONDS = 120;

  /** Issue 23's targets: start to first cycle on 25 (AOT cache) and 17 (AppCDS), ms. */
  private static final double TARGET_25_MS = 1_000;

  private static final double TARGET_17_MS = 1_600;

  /** run-once (nothing due) start to exit on 25, ms, and at most this many JDBC floors. */
  private static final double TARGET_RUN_ONCE_MS = 1_000;

  private static final double TARGET_RUN_ONCE_FLOORS = 6;

  /** The resident set at the first cycle before issue 23, at most (MB). */
  private static final double RSS_BEFORE_MB = 198;

  /** How a path starts the worker; the chart's categories, in order. */
  private enum How {
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

  /** A way to start the worker: which java (its feature version) and how. */
  private record LaunchPath(int jdk, How how, String java) {
    String name() {
      return switch (how) {
        case PACKED -> jdk + ": java -jar (packed)";
        case NO_CACHE -> jdk + ": bin/reaper, REAPER_CDS=off";
        case CACHE -> jdk + ": bin/reaper (" + (jdk >= 25 ? "AOT cache" : "AppCDS") + ")";
        case RUN_ONCE ->
            jdk + ": bin/reaper run-once (" + (jdk >= 25 ? "AOT cache" : "AppCDS") + ")";
        case JDBC -> jdk + ": JDBC floor (connect, one query, exit)";
      };
    }

    /** Timed to the process's exit rather than to its first cycle. */
    boolean toExit() {
      return how == How.RUN_ONCE || how == How.JDBC;
    }
  }

  /** One measured start: start to first cycle, and the resident set then (kB). */
  private record Start(double millis, long rssKb, long rssAnonKb) {}

  private final int rounds;
  private final String jdbcUrl;
  private final HikariDataSource admin;
  private final BenchReport report;
  private final Charts charts;
  private final Path launcher = Path.of("bin", "reaper").toAbsolutePath();
  private final Path workerJar =
      Path.of("reaper-worker", "target", "conference-room-reaper.jar").toAbsolutePath();

  /**
   * @param jdbcUrl the URL of the database {@code startup} on the bench's server (made here)
   * @param admin a connection pool to the server's {@code postgres} database
   */
  StartupBench(
      boolean quick,
      List<String> args,
      String jdbcUrl,
      HikariDataSource admin,
      BenchReport report,
      Charts charts) {
    int at = args.indexOf("--startup-rounds");
    this.rounds = at >= 0 ? Integer.parseInt(args.get(at + 1)) : quick ? 5 : 7;
    this.jdbcUrl = jdbcUrl;
    this.admin = admin;
    this.report = report;
    this.charts = charts;
  }

  void run() throws Exception {
    if (!Files.isExecutable(launcher) || !Files.isRegularFile(workerJar)) {
      throw new IllegalStateException(
          "the startup section starts bin/reaper and "
              + workerJar.getFileName()
              + " from the repository root; not found under "
              + Path.of("").toAbsolutePath());
    }
    report.line(
        "\n## 6. Start to first cycle by launch path and JDK (the production worker's `run` against a"
            + " database of its own on the bench's server, 1,000 live rooms, nothing due; from process"
            + " start to the first `cycle completed` log line, VmRSS then; median of "
            + rounds
            + " alternating rounds after one unmeasured round)");
    Path scratch = Files.createTempDirectory("reaper-startup");
    try {
      database();
      List<LaunchPath> paths = launchPaths(scratch);
      if (paths.isEmpty()) {
        report.line("skipped: neither a Java 17 nor a Java >= 25 found");
        return;
      }
      Map<LaunchPath, List<Start>> starts = new LinkedHashMap<>();
      paths.forEach(p -> starts.put(p, new ArrayList<>()));
      String loadBefore = loadAverage();
      for (int round = 0; round <= rounds; round++) {
        for (int i = 0; i < paths.size(); i++) {
          LaunchPath path = paths.get((i + round) % paths.size());
          Start s = start(path, scratch);
          if (round > 0) {
            starts.computeIfAbsent(path, k -> new ArrayList<>()).add(s);
          }
        }
      }
      table(starts, loadBefore);
      runOnceTable(starts);
      report.line("load average before / after: " + loadBefore + " / " + loadAverage());
    } finally {
      deleteTree(scratch);
    }
  }

  private void database() throws Exception {
    try (var c = admin.getConnection();
        var st = c.createStatement()) {
      st.execute("DROP DATABASE IF EXISTS startup");
      st.execute("CREATE DATABASE startup");
    }
    try (HikariDataSource ds = new HikariDataSource()) {
      ds.setJdbcUrl(jdbcUrl);
      ds.setMaximumPoolSize(2);
      SchemaMigrations.migrate(ds);
      new BenchData(ds).liveRooms(1000);
    }
  }

  /**
   * The JDK 17 paths with the first Java 17 found (the bytecode level, what the README needs); the
   * JDK 25 paths with the java {@code bin/reaper} picks itself, if it is 25 or newer. Both get
   * their unpacked jars and caches made here ({@code bin/reaper prepare}), outside the timing.
   */
  private List<LaunchPath> launchPaths(Path scratch) throws Exception {
    List<LaunchPath> paths = new ArrayList<>();
    Optional<Path> java17 = findJava17();
    if (java17.isPresent()) {
      String java = java17.get().toString();
      prepare(java, scratch);
      for (How how : How.values()) {
        paths.add(new LaunchPath(17, how, java));
      }
    } else {
      report.line(
          "no Java 17 found (java on PATH, /usr/lib/jvm/*, /opt/java/*): its rows are left out");
    }
    String picked = whichJava(scratch);
    int feature = feature(Path.of(picked)).orElse(0);
    if (feature >= 25) {
      prepare(picked, scratch);
      for (How how : How.values()) {
        paths.add(new LaunchPath(feature, how, picked));
      }
    } else {
      report.line(
          "bin/reaper found no Java >= 25 (it picks "
              + picked
              + "): the AOT-cache rows are left out");
    }
    for (LaunchPath p : paths) {
      report.line("  " + p.name() + ": " + runtimeVersion(Path.of(p.java())));
    }
    return paths;
  }

  private List<String> javaJar(String java) {
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(WORKER_FLAGS);
    command.addAll(List.of("-jar", workerJar.toString()));
    command.addAll(RUN);
    return command;
  }

  private List<String> launcherRun() {
    List<String> command = new ArrayList<>(List.of(launcher.toString()));
    command.addAll(RUN);
    return command;
  }

  /** A clean environment: the database, the java, nothing of the bench's own. */
  private Map<String, String> environment(LaunchPath path, Path scratch) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("HOME", scratch.toString());
    env.put("SPRING_DATASOURCE_URL", jdbcUrl);
    env.put("SPRING_DATASOURCE_USERNAME", "postgres");
    env.put("REAPER_JAVA", path.java());
    if (path.how() == How.NO_CACHE) {
      env.put("REAPER_CDS", "off");
    }
    return env;
  }

  private Start start(LaunchPath path, Path scratch) throws Exception {
    List<String> command =
        switch (path.how()) {
          case PACKED -> javaJar(path.java());
          case RUN_ONCE -> List.of(launcher.toString(), "run-once");
          case JDBC -> jdbcFloor(path.java(), scratch);
          default -> launcherRun();
        };
    ProcessBuilder pb =
        new ProcessBuilder(command).directory(scratch.toFile()).redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().putAll(environment(path, scratch));
    if (path.toExit()) {
      return toExit(path, pb);
    }
    Deque<String> tail = new ArrayDeque<>();
    long t0 = System.nanoTime();
    Process p = pb.start();
    Thread watchdog = watchdog(p);
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      long t1 = 0;
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.contains(CYCLE_COMPLETED)) {
          t1 = System.nanoTime();
          break;
        }
        tail.addLast(line);
        if (tail.size() > 40) {
          tail.removeFirst();
        }
      }
      if (t1 == 0) {
        throw new IllegalStateException(
            path.name()
                + ": no 'cycle completed' log line within "
                + START_TIMEOUT_SECONDS
                + " s (exit "
                + (p.isAlive() ? "none" : p.exitValue())
                + "); its last lines:\n"
                + String.join("\n", tail));
      }
      Map<String, Long> status = procStatus(p.pid());
      Start s =
          new Start(
              (t1 - t0) / 1e6,
              status.getOrDefault("VmRSS", 0L),
              status.getOrDefault("RssAnon", 0L));
      // SIGTERM, as in a rolling deploy, through the handle: Process.destroy would also close the
      // stream still being drained here.
      p.toHandle().destroy();
      while (out.readLine() != null) {
        // drain until the worker has closed its output
      }
      return s;
    } finally {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      watchdog.interrupt();
    }
  }

  /** A start timed to the process's exit, which must be 0; output is kept only for an error. */
  private static Start toExit(LaunchPath path, ProcessBuilder pb) throws Exception {
    long t0 = System.nanoTime();
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(path.name() + ": did not exit");
    }
    long t1 = System.nanoTime();
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          path.name()
              + ": exit "
              + p.exitValue()
              + ":\n"
              + new String(out, StandardCharsets.UTF_8));
    }
    return new Start((t1 - t0) / 1e6, 0, 0);
  }

  /**
   * {@link JdbcFloor} with nothing but its own class (copied to {@code scratch}) and the driver's
   * jar on the class path.
   */
  private List<String> jdbcFloor(String java, Path scratch) throws Exception {
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

  private static Thread watchdog(Process p) {
    Thread t =
        new Thread(
            () -> {
              try {
                if (!p.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                  p.destroyForcibly();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "startup-watchdog");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private void table(Map<LaunchPath, List<Start>> starts, String loadBefore) {
    report.line(
        "| launch path | rounds, start to first cycle (ms) | median ms | vs 17 java -jar"
            + " | VmRSS MB (median) | of which anonymous MB |");
    report.line("|---|---|---:|---:|---:|---:|");
    double reference = 0;
    // Chart series: one per JDK; categories: how it was started.
    Map<String, Map<String, Double>> millis = new LinkedHashMap<>();
    Map<String, Map<String, Double>> rss = new LinkedHashMap<>();
    List<String> verdicts = new ArrayList<>();
    for (var e : starts.entrySet()) {
      LaunchPath path = e.getKey();
      List<Start> s = e.getValue();
      if (path.toExit()) {
        continue;
      }
      double ms = BenchReport.median(s.stream().map(Start::millis).toList());
      double rssMb = BenchReport.median(s.stream().map(x -> x.rssKb() / 1024.0).toList());
      double anonMb = BenchReport.median(s.stream().map(x -> x.rssAnonKb() / 1024.0).toList());
      if (reference == 0 && path.jdk() == 17 && path.how() == How.PACKED) {
        reference = ms;
      }
      String series =
          "Java " + path.jdk() + (path.jdk() >= 25 ? " (cache: AOT)" : " (cache: AppCDS)");
      millis.computeIfAbsent(series, k -> new LinkedHashMap<>()).put(path.how().label, ms);
      rss.computeIfAbsent(series, k -> new LinkedHashMap<>()).put(path.how().label, rssMb);
      List<String> each = s.stream().map(x -> String.format("%,.0f", x.millis())).toList();
      report.line(
          String.format(
              "| %s | %s | %,.0f | %s | %.0f | %.0f |",
              path.name(),
              String.join(" · ", each),
              ms,
              reference == 0 ? "—" : String.format("%.2f×", ms / reference),
              rssMb,
              anonMb));
      if (path.how() == How.CACHE) {
        verdicts.add(verdict(path, ms, rssMb));
      }
    }
    verdicts.forEach(report::line);
    charts.bars(
        "startup-by-launch-path.png",
        "Start to first cycle by launch path and JDK (median ms; targets: 1,000 on 25, 1,600 on 17)",
        "launch path",
        "ms from process start to the first cycle",
        millis);
    charts.bars(
        "rss-by-launch-path.png",
        "Resident set after the first cycle by launch path and JDK (median VmRSS)",
        "launch path",
        "MB",
        rss);
  }

  private static String verdict(LaunchPath path, double ms, double rssMb) {
    double target = path.jdk() >= 25 ? TARGET_25_MS : TARGET_17_MS;
    return String.format(
        "target: start to first cycle <= %,.0f ms median on Java %d (%s): %,.0f ms, %s;"
            + " VmRSS <= %.0f MB: %.0f MB, %s",
        target,
        path.jdk(),
        path.jdk() >= 25 ? "AOT cache" : "AppCDS",
        ms,
        missedBy(ms, target, "ms"),
        RSS_BEFORE_MB,
        rssMb,
        missedBy(rssMb, RSS_BEFORE_MB, "MB"));
  }

  private static String missedBy(double value, double target, String unit) {
    return value <= target
        ? "met"
        : String.format(
            "missed by %,.1f %s (%.0f %%)", value - target, unit, 100 * (value / target - 1));
  }

  /**
   * {@code run-once} with nothing due against the JDBC floor on the same JDK: medians, and the
   * median of the rounds' paired ratios (the two ran minutes apart at most, in the same round).
   */
  private void runOnceTable(Map<LaunchPath, List<Start>> starts) {
    report.line(
        "\n| JDK | run-once, start to exit (ms) | median | JDBC floor, start to exit (ms) | median"
            + " | run-once / floor (median of paired ratios) |");
    report.line("|---|---|---:|---|---:|---:|");
    List<String> verdicts = new ArrayList<>();
    for (var e : starts.entrySet()) {
      LaunchPath once = e.getKey();
      if (once.how() != How.RUN_ONCE) {
        continue;
      }
      List<Start> o = e.getValue();
      List<Start> f =
          starts.entrySet().stream()
              .filter(x -> x.getKey().jdk() == once.jdk() && x.getKey().how() == How.JDBC)
              .findFirst()
              .map(Map.Entry::getValue)
              .orElse(List.of());
      if (f.size() != o.size()) {
        continue;
      }
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < o.size(); i++) {
        ratios.add(o.get(i).millis() / f.get(i).millis());
      }
      double om = BenchReport.median(o.stream().map(Start::millis).toList());
      double fm = BenchReport.median(f.stream().map(Start::millis).toList());
      double ratio = BenchReport.median(ratios);
      report.line(
          String.format(
              "| %d | %s | %,.0f | %s | %,.0f | %.1f× |",
              once.jdk(),
              String.join(" · ", o.stream().map(x -> String.format("%,.0f", x.millis())).toList()),
              om,
              String.join(" · ", f.stream().map(x -> String.format("%,.0f", x.millis())).toList()),
              fm,
              ratio));
      if (once.jdk() >= 25) {
        verdicts.add(
            String.format(
                "target: run-once (nothing due) start to exit <= %,.0f ms on Java %d: %,.0f ms, %s",
                TARGET_RUN_ONCE_MS, once.jdk(), om, missedBy(om, TARGET_RUN_ONCE_MS, "ms")));
      }
      verdicts.add(
          String.format(
              "target: run-once <= %.0f × the JDBC floor on Java %d: %.1f×, %s",
              TARGET_RUN_ONCE_FLOORS,
              once.jdk(),
              ratio,
              missedBy(ratio, TARGET_RUN_ONCE_FLOORS, "×")));
    }
    verdicts.forEach(report::line);
  }

  /** {@code bin/reaper prepare} with that java: unpacks the jars and trains their caches once. */
  private void prepare(String java, Path scratch) throws Exception {
    Path log = scratch.resolve("prepare.log");
    ProcessBuilder pb =
        new ProcessBuilder(launcher.toString(), "prepare")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("REAPER_JAVA", java);
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(
          "bin/reaper prepare with " + java + " failed:\n" + Files.readString(log));
    }
  }

  /** The java {@code bin/reaper} picks in the bench's own environment. */
  private String whichJava(Path scratch) throws Exception {
    Path out = scratch.resolve("which-java.out");
    Process p =
        new ProcessBuilder(launcher.toString(), "which-java")
            .redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException("bin/reaper which-java failed");
    }
    return Files.readString(out).trim();
  }

  /** The first Java 17: {@code java} on PATH, then the usual JDK folders. */
  private static Optional<Path> findJava17() throws IOException {
    List<Path> candidates = new ArrayList<>();
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty()) {
        candidates.add(Path.of(dir, "java"));
      }
    }
    for (String parent : List.of("/usr/lib/jvm", "/opt/java")) {
      if (Files.isDirectory(Path.of(parent))) {
        try (DirectoryStream<Path> homes = Files.newDirectoryStream(Path.of(parent))) {
          homes.forEach(h -> candidates.add(h.resolve("bin").resolve("java")));
        }
      }
    }
    for (Path c : candidates) {
      if (Files.isExecutable(c) && feature(c).orElse(0) == 17) {
        return Optional.of(c.toRealPath());
      }
    }
    return Optional.empty();
  }

  private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"([0-9]+)");
  private static final Pattern RUNTIME_VERSION =
      Pattern.compile("(?m)^JAVA_RUNTIME_VERSION=\"([^\"]+)\"");

  /** The feature version from the java's home's {@code release} file. */
  static OptionalInt feature(Path java) {
    Matcher m = JAVA_VERSION.matcher(release(java));
    return m.find() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
  }

  private static String runtimeVersion(Path java) {
    Matcher m = RUNTIME_VERSION.matcher(release(java));
    return (m.find() ? m.group(1) : "version unknown") + " (" + java + ")";
  }

  private static String release(Path java) {
    try {
      Path bin = java.toRealPath().getParent();
      Path home = bin == null ? null : bin.getParent();
      return home == null ? "" : Files.readString(home.resolve("release"));
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  /** The kB fields of /proc/<pid>/status (VmRSS, RssAnon, ...). */
  private static Map<String, Long> procStatus(long pid) throws IOException {
    Map<String, Long> fields = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      String[] parts = line.split("\\s+");
      if (parts.length == 3 && parts[2].equals("kB")) {
        fields.put(parts[0].replace(":", ""), Long.parseLong(parts[1]));
      }
    }
    return fields;
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "n/a";
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      try (DirectoryStream<Path> children = Files.newDirectoryStream(p)) {
        for (Path c : children) {
          deleteTree(c);
        }
      }
    }
    Files.deleteIfExists(p);
  }
}
