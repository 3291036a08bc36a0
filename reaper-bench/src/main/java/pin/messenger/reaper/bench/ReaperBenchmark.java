package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import pin.messenger.reaper.app.cli.ReaperCli;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * {@code bin/reaper bench [--quick] [--only <sections>] [--charts <dir> | --no-charts]
 * [--worker-jar <path>]}: the benchmark of docs/benchmarks.md, in one run on a fresh embedded
 * PostgreSQL. This class starts the server and its databases and runs the sections in the order of
 * {@link Sections#KNOWN}: {@link IdleCycleBench} ({@code idle}, JMH), {@link BacklogBench} ({@code
 * backlog}), {@link ShippedDrainBench} ({@code shipped-drain}) and {@link ShippedCycleBench}
 * ({@code shipped-cycle}) with the production jar as a child process, {@link SloBench} ({@code
 * slo}), {@link HeartbeatBench} ({@code heartbeat}, pgbench), {@link StartupBench} ({@code
 * startup}), {@link RunnerLimitBench} ({@code limit}; {@code --worker-jar <path>}) and {@link
 * ScheduleBench} ({@code schedule}) with the production jar as child processes. {@code --only} runs
 * the named sections (to repeat one); the charts go to {@link Charts}.
 */
public final class ReaperBenchmark {
  private ReaperBenchmark() {}

  /**
   * The benchmark jar's entry point ({@code bin/reaper bench} passes what follows {@code bench}); a
   * failure is one {@code bench failed: …} line on stderr and exit status 1.
   */
  public static void main(String[] args) {
    int code;
    try {
      code = run(List.of(args));
    } catch (Exception e) {
      System.err.println("bench failed: " + ReaperCli.describe(e));
      code = 1;
    }
    System.exit(code);
  }

  public static int run(List<String> args) throws Exception {
    boolean quick = args.contains("--quick");
    Sections sections = Sections.from(args);
    // Before anything runs: a missing production jar fails now, not after the other sections.
    Path workerJar =
        sections.has("limit") || sections.has("schedule") ? WorkerProcess.jar(args) : Path.of(".");
    // The charts are drawn off-screen.
    System.setProperty("java.awt.headless", "true");
    BenchReport.quietLogging();
    Path dir = Files.createTempDirectory("reaper-bench");
    try (EmbeddedPostgres pg =
            EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(true)
                .setServerConfig("shared_buffers", "512MB")
                .setServerConfig("max_wal_size", "4GB")
                .start();
        HikariDataSource ds = new HikariDataSource();
        HikariDataSource idle = new HikariDataSource();
        HikariDataSource ref = new HikariDataSource()) {
      ds.setJdbcUrl(pg.getJdbcUrl("postgres", "postgres"));
      ds.setMaximumPoolSize(4);
      SchemaMigrations.migrate(ds);
      try (var c = ds.getConnection();
          var st = c.createStatement()) {
        st.execute("CREATE DATABASE idle");
        st.execute("CREATE DATABASE reference");
      }
      for (var side : List.of(Map.entry(idle, "idle"), Map.entry(ref, "reference"))) {
        side.getKey().setJdbcUrl(pg.getJdbcUrl("postgres", side.getValue()));
        side.getKey().setMaximumPoolSize(2);
        SchemaMigrations.migrate(side.getKey());
        new BenchData(side.getKey()).liveRooms(1000);
      }
      new BenchData(ref).history(10_000);
      BenchServer server = new BenchServer(db -> pg.getJdbcUrl("postgres", db));
      BenchReport report = new BenchReport();
      Charts charts = Charts.from(args, report);
      report.line(
          "# conference-room-reaper benchmark ("
              + (quick ? "quick" : "full")
              + "), "
              + Runtime.getRuntime().availableProcessors()
              + " cores, PostgreSQL "
              + version(ds)
              + ", "
              + Instant.now()
              + (sections.all() ? "" : ", sections " + sections));
      if (sections.has("idle")) {
        new IdleCycleBench(idle, ref, report, charts)
            .run(quick ? List.of(10_000L, 1_000_000L) : List.of(10_000L, 1_000_000L, 10_000_000L));
      }
      if (sections.has("backlog")) {
        BacklogBench backlog = new BacklogBench(quick, ds, report);
        backlog.drain();
        backlog.defaultCycle();
        backlog.drainMode();
      }
      if (sections.has("shipped-drain")) {
        new ShippedDrainBench(quick, server, report, charts).run();
      }
      if (sections.has("shipped-cycle")) {
        new ShippedCycleBench(server, report).run();
      }
      if (sections.has("slo")) {
        new SloBench(quick, ds, report).run();
      }
      if (sections.has("heartbeat")) {
        new HeartbeatBench(quick, server, idle, ref, report, charts).run();
      }
      if (sections.has("startup")) {
        new StartupBench(quick, args, server, report, charts).run();
      }
      if (sections.has("limit")) {
        new RunnerLimitBench(quick, workerJar, report, charts).run();
      }
      if (sections.has("schedule")) {
        new ScheduleBench(quick, args, workerJar, report, charts).run();
      }
      System.out.println("\n" + report);
    }
    return 0;
  }

  /** The sections {@code --only a,b} names, or all of them. An unknown name is an error. */
  record Sections(List<String> names) {
    static final List<String> KNOWN =
        List.of(
            "idle",
            "backlog",
            "shipped-drain",
            "shipped-cycle",
            "slo",
            "heartbeat",
            "startup",
            "limit",
            "schedule");

    static Sections from(List<String> args) {
      int at = args.indexOf("--only");
      if (at < 0) {
        return new Sections(KNOWN);
      }
      if (at + 1 >= args.size()) {
        throw new IllegalArgumentException("--only needs a list of sections, one of " + KNOWN);
      }
      List<String> names = List.of(args.get(at + 1).split(","));
      for (String name : names) {
        if (!KNOWN.contains(name)) {
          throw new IllegalArgumentException(
              "--only: unknown section '" + name + "', expected some of " + KNOWN);
        }
      }
      return new Sections(names);
    }

    boolean has(String name) {
      return names.contains(name);
    }

    boolean all() {
      return names.containsAll(KNOWN);
    }

    @Override
    public String toString() {
      return String.join(",", names);
    }
  }

  private static String version(HikariDataSource ds) throws Exception {
    try (var c = ds.getConnection();
        var st = c.createStatement();
        var rs = st.executeQuery("SHOW server_version")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
