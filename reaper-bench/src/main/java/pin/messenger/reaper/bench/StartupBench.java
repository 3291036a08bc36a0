package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import pin.messenger.reaper.bench.StartupLaunch.How;
import pin.messenger.reaper.bench.StartupLaunch.Start;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * Section {@code startup}: start to first cycle by launch path and JDK. Every launch path ({@link
 * StartupLaunch}) starts the production worker ({@code run}) as a process of its own against a
 * database of the bench's server that no other section touches (1,000 live rooms, nothing due),
 * from the repository root: {@code java -jar} on the packed jar, and {@code bin/reaper} (the jar
 * unpacked, with the start-up cache it picks for the JDK: an AppCDS archive on 17, an AOT cache on
 * 25, none with {@code REAPER_CDS=off}). A start is timed from just before the process is created
 * to its first {@code cycle completed} log line; the process's {@code VmRSS} is read right then,
 * and it is stopped with SIGTERM. Per JDK two more paths are timed from process start to exit:
 * {@code bin/reaper run-once} as it ships (nothing due) and its floor, {@link JdbcFloor} (connect,
 * one query, exit) with only the driver on the class path. One unmeasured round first (the launcher
 * unpacks and trains what is missing, the page cache fills), then rounds in which the paths take
 * turns, the order rotated each round. No maintained harness fits: JMH times code inside a JVM,
 * this times whole processes from their creation to a log line, across launch paths and JDKs.
 */
final class StartupBench {
  /**
   * The targets (docs/benchmarks.md): start to first cycle on 25 (AOT cache) and 17 (AppCDS), ms.
   */
  private static final double TARGET_25_MS = 1_000;

  private static final double TARGET_17_MS = 1_600;

  /** run-once (nothing due) start to exit on 25, ms, and at most this many JDBC floors. */
  private static final double TARGET_RUN_ONCE_MS = 1_000;

  private static final double TARGET_RUN_ONCE_FLOORS = 6;

  /** The target for the resident set at the first cycle, at most (MB). */
  private static final double TARGET_RSS_MB = 198;

  private final int rounds;
  private final BenchServer server;
  private final BenchReport report;
  private final Charts charts;

  StartupBench(
      boolean quick, List<String> args, BenchServer server, BenchReport report, Charts charts) {
    this.rounds = (int) BenchArgs.number(args, "--startup-rounds", quick ? 5 : 7, 1);
    this.server = server;
    this.report = report;
    this.charts = charts;
  }

  void run() throws Exception {
    Launcher launcher = Launcher.find("startup");
    report.line(
        "\n## Start to first cycle by launch path and JDK (the production worker's `run` against a"
            + " database of its own on the bench's server, 1,000 live rooms, nothing due; from process"
            + " start to the first `cycle completed` log line, VmRSS then; median of "
            + rounds
            + " alternating rounds after one unmeasured round)");
    Path scratch = Files.createTempDirectory("reaper-startup");
    try {
      database();
      List<StartupLaunch> paths = launchPaths(launcher, scratch);
      if (paths.isEmpty()) {
        report.line("skipped: neither a Java 17 nor a Java >= 25 found");
        return;
      }
      Map<StartupLaunch, List<Start>> starts = new LinkedHashMap<>();
      paths.forEach(p -> starts.put(p, new ArrayList<>()));
      String loadBefore = Machine.loadAverage();
      for (int round = 0; round <= rounds; round++) {
        for (int i = 0; i < paths.size(); i++) {
          StartupLaunch path = BenchReport.rotated(paths, round, i);
          Start s = path.start(launcher, server.url("startup"), scratch);
          if (round > 0) {
            starts.computeIfAbsent(path, k -> new ArrayList<>()).add(s);
          }
        }
      }
      table(starts);
      runOnceTable(starts);
      report.line("load average before / after: " + loadBefore + " / " + Machine.loadAverage());
    } finally {
      Machine.deleteTree(scratch);
    }
  }

  private void database() throws Exception {
    server.recreate("startup");
    try (HikariDataSource ds = BenchData.pool(server.url("startup"), 2)) {
      SchemaMigrations.migrate(ds);
      new BenchData(ds).liveRooms(1000);
    }
  }

  /**
   * The JDK 17 paths with the first Java 17 found (the bytecode level, what the README needs); the
   * JDK 25 paths with the java {@code bin/reaper} picks itself, if it is 25 or newer. Both get
   * their unpacked jars and caches made here ({@code bin/reaper prepare}), outside the timing.
   */
  private List<StartupLaunch> launchPaths(Launcher launcher, Path scratch) throws Exception {
    List<StartupLaunch> paths = new ArrayList<>();
    Optional<Path> java17 = Jdks.findJava17();
    if (java17.isPresent()) {
      String java = java17.get().toString();
      prepare(launcher, java, scratch);
      for (How how : How.values()) {
        paths.add(new StartupLaunch(17, how, java));
      }
    } else {
      report.line(
          "no Java 17 found (java on PATH, /usr/lib/jvm/*, /opt/java/*): its rows are left out");
    }
    String picked = Jdks.picked(launcher);
    int feature = Jdks.feature(Path.of(picked)).orElse(0);
    if (feature >= 25) {
      prepare(launcher, picked, scratch);
      for (How how : How.values()) {
        paths.add(new StartupLaunch(feature, how, picked));
      }
    } else {
      report.line(
          "bin/reaper found no Java >= 25 (it picks "
              + picked
              + "): the AOT-cache rows are left out");
    }
    for (StartupLaunch p : paths) {
      report.line("  " + p.name() + ": " + Jdks.runtimeVersion(Path.of(p.java())));
    }
    return paths;
  }

  /** {@code bin/reaper prepare} with that java: unpacks the jars and trains their caches once. */
  private static void prepare(Launcher launcher, String java, Path scratch) throws Exception {
    ProcessBuilder pb = new ProcessBuilder();
    pb.environment().put("REAPER_JAVA", java);
    launcher.prepare(pb, scratch.resolve("prepare.log"));
  }

  private void table(Map<StartupLaunch, List<Start>> starts) {
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
      StartupLaunch path = e.getKey();
      List<Start> s = e.getValue();
      if (path.toExit()) {
        continue;
      }
      List<Double> ms = s.stream().map(Start::millis).toList();
      double median = BenchReport.median(ms);
      double rssMb = BenchReport.median(s.stream().map(x -> x.rssKb() / 1024.0).toList());
      double anonMb = BenchReport.median(s.stream().map(x -> x.rssAnonKb() / 1024.0).toList());
      if (reference == 0 && path.jdk() == 17 && path.how() == How.PACKED) {
        reference = median;
      }
      String series =
          "Java " + path.jdk() + (path.jdk() >= 25 ? " (cache: AOT)" : " (cache: AppCDS)");
      millis.computeIfAbsent(series, k -> new LinkedHashMap<>()).put(path.how().label, median);
      rss.computeIfAbsent(series, k -> new LinkedHashMap<>()).put(path.how().label, rssMb);
      report.line(
          String.format(
              "| %s | %s | %,.0f | %s | %.0f | %.0f |",
              path.name(),
              BenchReport.each(ms, "%,.0f"),
              median,
              reference == 0 ? "—" : String.format("%.2f×", median / reference),
              rssMb,
              anonMb));
      if (path.how() == How.CACHE) {
        verdicts.add(verdict(path, median, rssMb));
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

  private static String verdict(StartupLaunch path, double ms, double rssMb) {
    double target = path.jdk() >= 25 ? TARGET_25_MS : TARGET_17_MS;
    return String.format(
        "target: start to first cycle <= %,.0f ms median on Java %d (%s): %,.0f ms, %s;"
            + " VmRSS <= %.0f MB: %.0f MB, %s",
        target,
        path.jdk(),
        path.jdk() >= 25 ? "AOT cache" : "AppCDS",
        ms,
        missedBy(ms, target, "ms"),
        TARGET_RSS_MB,
        rssMb,
        missedBy(rssMb, TARGET_RSS_MB, "MB"));
  }

  private static String missedBy(double value, double target, String unit) {
    return BenchReport.atMost(value, target, "%,.1f " + unit + " (%.0f %%)");
  }

  /**
   * {@code run-once} with nothing due against the JDBC floor on the same JDK: medians, and the
   * median of the rounds' paired ratios (the two ran minutes apart at most, in the same round).
   */
  private void runOnceTable(Map<StartupLaunch, List<Start>> starts) {
    report.line(
        "\n| JDK | run-once, start to exit (ms) | median | JDBC floor, start to exit (ms) | median"
            + " | run-once / floor (median of paired ratios) |");
    report.line("|---|---|---:|---|---:|---:|");
    List<String> verdicts = new ArrayList<>();
    for (var e : starts.entrySet()) {
      StartupLaunch once = e.getKey();
      if (once.how() != How.RUN_ONCE) {
        continue;
      }
      List<Double> o = e.getValue().stream().map(Start::millis).toList();
      List<Double> f =
          starts.entrySet().stream()
              .filter(x -> x.getKey().jdk() == once.jdk() && x.getKey().how() == How.JDBC)
              .findFirst()
              .map(x -> x.getValue().stream().map(Start::millis).toList())
              .orElse(List.of());
      if (f.size() != o.size()) {
        continue;
      }
      double om = BenchReport.median(o);
      double ratio = BenchReport.median(BenchReport.pairedRatios(o, f));
      report.line(
          String.format(
              "| %d | %s | %,.0f | %s | %,.0f | %.1f× |",
              once.jdk(),
              BenchReport.each(o, "%,.0f"),
              om,
              BenchReport.each(f, "%,.0f"),
              BenchReport.median(f),
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
}
