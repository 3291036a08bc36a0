package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * {@code bin/reaper bench [--quick]}: the reaper against the raw-SQL floor on its own schema, in
 * one run on a fresh embedded PostgreSQL. Every figure is a median of repeated runs; ratios compare
 * runs of the same process. This class starts the server and its databases and runs the sections in
 * order: {@link IdleCycleBench} (1), {@link BacklogBench} (2, 3, 3b), {@link SloBench} (4).
 */
public final class ReaperBenchmark {
  private ReaperBenchmark() {}

  public static int run(List<String> args) throws Exception {
    boolean quick = args.contains("--quick");
    // Only the figures: the embedded server and the pool are chatty at INFO.
    ((ch.qos.logback.classic.Logger)
            org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
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
      BenchReport report = new BenchReport();
      report.line(
          "# conference-room-reaper benchmark ("
              + (quick ? "quick" : "full")
              + "), "
              + Runtime.getRuntime().availableProcessors()
              + " cores, PostgreSQL "
              + version(ds)
              + ", "
              + Instant.now());
      new IdleCycleBench(idle, ref, report)
          .run(quick ? List.of(10_000L, 1_000_000L) : List.of(10_000L, 1_000_000L, 10_000_000L));
      BacklogBench backlog = new BacklogBench(quick, ds, report);
      backlog.drain();
      backlog.defaultCycle();
      backlog.drainMode();
      new SloBench(quick, ds, report).run();
      System.out.println("\n" + report);
    }
    return 0;
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
