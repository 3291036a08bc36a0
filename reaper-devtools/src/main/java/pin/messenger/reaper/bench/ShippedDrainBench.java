package pin.messenger.reaper.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * Section 2s ({@code shipped-drain}): the drain as it ships, measured from outside. The worker is
 * the production jar started by {@code bin/reaper} (its JVM flags and class-data archive) as a
 * child process, logging at its default level (INFO, a {@code conference reaped} line per room)
 * into a pipe this process drains, against a database of the bench's server. Two shapes: a fresh
 * {@code run-once} (a new JVM per drain) and a warm {@code run} worker (started, warmed by a first
 * backlog, then timed on backlogs committed while it runs). Each is compared with the set-based
 * floor ({@link Floors#SET_BASED_BATCH}) on an identical copy of the database ({@code CREATE
 * DATABASE … TEMPLATE}), in the same repetition, alternating which goes first.
 *
 * <p>A drain's time is taken from the lines as they arrive here: from the {@code cycle started}
 * line of the cycle that drains (or the backlog's commit, if later) to its {@code cycle completed}
 * line, which the worker writes after every {@code conference reaped} line of the cycle; the count
 * of those lines is checked. Process start-up is not in it (docs/benchmarks.md, start-up).
 */
final class ShippedDrainBench {
  private static final int BACKLOG = 20_000;
  private static final String TEMPLATE = "shipped_template";
  private static final Pattern EMPTY_TIMEOUT = Pattern.compile("\"emptyTimeout\":(\\d+)");
  private static final Pattern DURATION_MS = Pattern.compile("\"durationMs\":(\\d+)");
  private static final Pattern PROVISION_FAILED = Pattern.compile("\"provisionFailed\":(\\d+)");
  private static final Pattern STALE_TIMEOUT = Pattern.compile("\"staleTimeout\":(\\d+)");

  private final boolean quick;
  private final Function<String, String> jdbcUrl;
  private final BenchReport report;
  private final Charts charts;
  private final Path launcher;
  private final Path logs;

  ShippedDrainBench(
      boolean quick, Function<String, String> jdbcUrl, BenchReport report, Charts charts)
      throws IOException {
    this.quick = quick;
    this.jdbcUrl = jdbcUrl;
    this.report = report;
    this.charts = charts;
    this.launcher = launcher();
    this.logs = Files.createTempDirectory("reaper-shipped-drain");
  }

  /**
   * {@code bin/reaper} of the repository this bench runs from: the working directory or one of its
   * parents, with the production jar built.
   */
  private static Path launcher() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path bin = dir.resolve("bin/reaper");
      if (Files.isExecutable(bin)
          && Files.isRegularFile(dir.resolve("reaper-worker/target/conference-room-reaper.jar"))) {
        return bin;
      }
    }
    throw new IllegalStateException(
        "--only shipped-drain: no bin/reaper with a built production jar"
            + " (reaper-worker/target/conference-room-reaper.jar) in the working directory or its"
            + " parents; run `bin/reaper bench` from the repository root");
  }

  void run() throws Exception {
    int reps = quick ? 1 : 3;
    List<Integer> batches = quick ? List.of(250, 1000) : List.of(100, 250, 500, 1000, 2000);
    template();
    // Unpack the jar and train its class-data archive now, not inside the first measurement.
    exec(List.of(launcher.toString(), "prepare"), logs.resolve("prepare.log"));
    report.line(
        String.format(
            "%n## 2s. Drain as shipped (production jar via bin/reaper, INFO logging into a pipe;"
                + " %,d due empty rooms, 3 roster rows each, every 10th recorded, over 100k history;"
                + " rows/s from the worker's lines as they arrive, median of %d alternated runs)",
            BACKLOG, reps));
    report.line(
        "| batch | drain pause | fresh run-once | warm run | set-based floor (same run) |"
            + " fresh / floor | warm / floor | fresh, cycle's own durationMs |");
    report.line("|---:|---|---:|---:|---:|---:|---:|---:|");
    Charts.Series fresh = Charts.Series.of("reaper, fresh run-once");
    Charts.Series warm = Charts.Series.of("reaper, warm run");
    Charts.Series floor = Charts.Series.of("set-based floor");
    // The command first: drain pause at its default (50 ms between batches).
    row(1000, null, reps);
    for (int batch : batches) {
      double[] r = row(batch, "0s", reps);
      fresh = fresh.plus(batch, r[0]);
      warm = warm.plus(batch, r[1]);
      floor = floor.plus(batch, r[2]);
    }
    charts.line(
        "drain-vs-batch-size.png",
        "Drain rows/s vs batch size (shipped jar, INFO logs, drain pause 0; medians)",
        "batch size",
        "rows/s",
        true,
        List.of(fresh, warm, floor));
  }

  /**
   * Section {@code shipped-cycle}: the default cycle and the idle cycle's buffers per live room, as
   * shipped (the production jar via {@code bin/reaper}, INFO logging into a pipe).
   */
  void cycles() throws Exception {
    exec(List.of(launcher.toString(), "prepare"), logs.resolve("prepare.log"));
    report.line(
        "\n## 2c. The default and the idle cycle as shipped (production jar via bin/reaper)");
    defaultCycle();
    idleBuffers();
  }

  /**
   * The default cycle as shipped: 100 due in each phase, default options, the worker's own {@code
   * durationMs} of the cycle that closes them; a fresh {@code run-once} per repetition, then one
   * warm {@code run} worker (polling every second, otherwise defaults) given the same rows while it
   * runs. Median of 5 each, after one unmeasured repetition.
   */
  private void defaultCycle() throws Exception {
    int reps = 5;
    String db = "shipped_cycle";
    admin("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    admin("CREATE DATABASE " + db);
    BenchData data = new BenchData(dataSource(db));
    SchemaMigrations.migrate(dataSource(db));
    data.liveRooms(1000);
    data.history(100_000);
    List<Double> fresh = new ArrayList<>();
    for (int rep = 0; rep <= reps; rep++) {
      commitDueInEachPhase(db);
      ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "run-once");
      environment(pb, db);
      pb.redirectError(logs.resolve("cycle-" + rep + ".stderr").toFile());
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IllegalStateException("run-once for the default cycle failed; see " + logs);
      }
      String[] lines = out.strip().split("\n");
      String document = lines[lines.length - 1];
      if (closed(document) != 300) {
        throw new IllegalStateException(
            "default cycle: run-once closed other than 300: " + document);
      }
      if (rep > 0) {
        fresh.add((double) group(DURATION_MS, document));
      }
    }
    List<Double> warm = new ArrayList<>();
    List<String> command =
        List.of(launcher.toString(), "run", "--reaper.polling-interval=1s", "--server.port=0");
    ProcessBuilder pb = new ProcessBuilder(command);
    environment(pb, db);
    pb.redirectError(logs.resolve("cycle-warm.stderr").toFile());
    Process worker = pb.start();
    java.util.concurrent.BlockingQueue<String> completed =
        new java.util.concurrent.LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  if (line.contains("\"message\":\"cycle completed\"") && closed(line) > 0) {
                    completed.add(line);
                  }
                }
              } catch (IOException e) {
                // The worker ended.
              }
            },
            "shipped-cycle-stdout");
    reader.setDaemon(true);
    reader.start();
    try {
      for (int rep = 0; rep < reps + 3; rep++) {
        commitDueInEachPhase(db);
        String line = completed.poll(2, TimeUnit.MINUTES);
        if (line == null || closed(line) != 300) {
          throw new IllegalStateException("warm default cycle: " + line);
        }
        if (rep >= 3) {
          warm.add((double) group(DURATION_MS, line));
        }
      }
    } finally {
      worker.destroy();
      if (!worker.waitFor(60, TimeUnit.SECONDS)) {
        worker.destroyForcibly();
      }
    }
    double f = BenchReport.median(fresh);
    double w = BenchReport.median(warm);
    report.line(
        String.format(
            "%n### Default cycle (100 due in each phase, default options; 1,000 live rooms,"
                + " 100k history; the worker's own durationMs, median of %d)%n"
                + "| shape | cycles (ms) | median ms |%n|---|---|---:|%n"
                + "| fresh run-once | %s | %.0f |%n| warm run (3 cycles' warm-up) | %s | %.0f |%n"
                + "target: default cycle <= 25 ms median (warm): %.0f ms, %s",
            reps,
            fresh,
            f,
            warm,
            w,
            w,
            w <= 25 ? "met" : String.format("missed by %.0f ms", w - 25)));
  }

  /** 100 due in each phase, committed in one transaction. */
  private void commitDueInEachPhase(String db) throws SQLException {
    try (Connection c = dataSource(db).getConnection()) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        for (String sql : BenchData.backlogInOneTransaction(100)) {
          st.execute(sql);
        }
        for (String sql : BenchData.provisionAndStaleDue(100)) {
          st.execute(sql);
        }
      }
      c.commit();
    }
  }

  private static int closed(String line) {
    return group(EMPTY_TIMEOUT, line) + group(PROVISION_FAILED, line) + group(STALE_TIMEOUT, line);
  }

  private static int group(Pattern p, String line) {
    Matcher m = p.matcher(line);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  /**
   * The idle cycle's shared buffers per live room, as shipped: {@code run-once} with nothing due,
   * counted by the database itself ({@code blks_hit + blks_read} of {@code pg_stat_database} before
   * the process and after its backends have ended, which flushes their counters). Two databases of
   * 100k rows each: one with 1,000 live rooms, each among 99 terminal rows (a heap page of its own,
   * as in IdleCycleBuffersTest), and one with the same rows all terminal; the difference over 1,000
   * is the cost per live room, the second database's figure the process's fixed cost (new
   * connections' catalog reads, the Flyway check, the run lock, the delivery pass). The pool is
   * kept to the connections the command asks for ({@code minimum-idle=1}). Median of 5.
   */
  private void idleBuffers() throws Exception {
    int live = 1000;
    List<Double> perRoom = new ArrayList<>();
    List<Long> fixed = new ArrayList<>();
    idleDatabase("shipped_idle", live);
    idleDatabase("shipped_idle0", 0);
    for (int rep = 0; rep <= 5; rep++) {
      long withLive = idleRunOnce("shipped_idle", rep);
      long without = idleRunOnce("shipped_idle0", rep);
      if (rep > 0) {
        perRoom.add((withLive - without) / (double) live);
        fixed.add(without);
      }
    }
    double m = BenchReport.median(perRoom);
    report.line(
        String.format(
            "%n### Idle cycle's shared buffers per live room (run-once, nothing due, %,d live rooms"
                + " each among 99 terminal rows, against the same 100k rows with none live;"
                + " pg_stat_database blks_hit + blks_read per process, one pooled connection)%n"
                + "per live room: %s, median %.3f; the process's fixed cost: %s buffers%n"
                + "target: <= 1.2 buffer visits per live room per cycle: %.3f, %s",
            live,
            perRoom.stream().map(x -> String.format("%.3f", x)).toList(),
            m,
            fixed,
            m,
            m <= 1.2 ? "met" : String.format("missed by %.3f", m - 1.2)));
  }

  /** 100k rows: every 100th a live room ({@code live} of them), the rest terminal. */
  private void idleDatabase(String db, int live) throws SQLException {
    admin("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    admin("CREATE DATABASE " + db);
    SchemaMigrations.migrate(dataSource(db));
    BenchData data = new BenchData(dataSource(db));
    data.exec(
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, end_reason, started_by_user_id, created_at,
           started_at, ended_at, last_activity_at, updated_at, active_participant_count, peak_participant_count,
           duration_seconds)
        SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video',
               CASE WHEN g.live THEN 'Active' ELSE 'Ended' END,
               CASE WHEN g.live THEN NULL ELSE 'Completed' END, gen_random_uuid(),
               now() - interval '3 days', now() - interval '3 days',
               CASE WHEN g.live THEN NULL ELSE now() - interval '2 days' END,
               CASE WHEN g.live THEN now() + interval '1 hour' ELSE now() - interval '2 days' END,
               now(), CASE WHEN g.live THEN 2 ELSE 0 END, 3,
               CASE WHEN g.live THEN NULL ELSE 3000 END
          FROM (SELECT i %% 100 = 0 AND i / 100 <= %d AS live FROM generate_series(1, 100000) AS i) g
        """
            .formatted(live));
    data.exec("VACUUM ANALYZE messenger.conference_sessions");
    data.exec("CHECKPOINT");
  }

  /** The shared buffers one {@code run-once} visited in {@code db}. */
  private long idleRunOnce(String db, int rep) throws Exception {
    long before = buffers(db);
    // One pooled connection: the pool otherwise opens up to its maximum in the background, each
    // new backend reading the catalogs, as many as the timing allows (2.5k-5.5k buffers between
    // runs), which would drown the live rooms' 1k.
    exec(
        List.of(launcher.toString(), "run-once", "--spring.datasource.hikari.minimum-idle=1"),
        logs.resolve(db + "-" + rep + ".log"),
        db);
    return buffers(db) - before;
  }

  /**
   * The database's shared-buffer visits so far, once no backend is connected to it (an ended
   * backend's counters are flushed as it ends).
   */
  private long buffers(String db) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Connection c = dataSource("postgres").getConnection();
        Statement st = c.createStatement()) {
      while (true) {
        try (var rs =
            st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + db + "'")) {
          rs.next();
          if (rs.getLong(1) == 0) {
            break;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("backends on " + db + " did not end within 30 s");
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
      st.execute("SELECT pg_stat_clear_snapshot()");
      try (var rs =
          st.executeQuery(
              "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = '" + db + "'")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** One table row: fresh, warm and floor rates; {@code pause} null is the default pause. */
  private double[] row(int batch, @Nullable String pause, int reps) throws Exception {
    List<String> options = new ArrayList<>();
    options.add("--reaper.drain.enabled=true");
    options.add("--reaper.batch-size=" + batch);
    if (pause != null) {
      options.add("--reaper.drain.pause=" + pause);
    }
    List<Double> freshRates = new ArrayList<>();
    List<Double> freshOwn = new ArrayList<>();
    List<Double> warmRates = new ArrayList<>();
    List<Double> floorRates = new ArrayList<>();
    try (WarmWorker worker = new WarmWorker(batch, options)) {
      for (int rep = 0; rep < reps; rep++) {
        copy("shipped_fresh");
        copy("shipped_floor");
        double[] f;
        double fl;
        // Alternate which goes first, so neither always runs on the fresher machine.
        if (rep % 2 == 0) {
          f = fresh(options, batch, rep);
          fl = floor(batch);
        } else {
          fl = floor(batch);
          f = fresh(options, batch, rep);
        }
        freshRates.add(f[0]);
        freshOwn.add(f[1]);
        floorRates.add(fl);
        warmRates.add(worker.drain());
      }
    }
    double fr = BenchReport.median(freshRates);
    double wr = BenchReport.median(warmRates);
    double fl = BenchReport.median(floorRates);
    report.line(
        String.format(
            "| %d | %s | %,.0f | %,.0f | %,.0f | %.2f | %.2f | %,.0f |",
            batch,
            pause == null ? "default (50 ms)" : pause,
            fr,
            wr,
            fl,
            fr / fl,
            wr / fl,
            BenchReport.median(freshOwn)));
    return new double[] {fr, wr, fl};
  }

  /**
   * One {@code run-once} on a fresh copy; returns {rows/s from the lines, rows/s from durationMs}.
   */
  private double[] fresh(List<String> options, int batch, int rep) throws Exception {
    List<String> command = new ArrayList<>(List.of(launcher.toString(), "run-once"));
    command.addAll(options);
    Process p = start(command, "shipped_fresh", "fresh-" + batch + "-" + rep);
    Lines lines = new Lines(p);
    lines.start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("run-once did not end within 10 minutes");
    }
    lines.join();
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          "run-once exited with " + p.exitValue() + "; stderr in " + logs);
    }
    Lines.Cycle c = lines.reaping(0);
    if (c == null || c.reaped() != BACKLOG || lines.reapedLines() != BACKLOG) {
      throw new IllegalStateException(
          "run-once drained "
              + (c == null ? 0 : c.reaped())
              + " rooms with "
              + lines.reapedLines()
              + " 'conference reaped' lines, expected "
              + BACKLOG);
    }
    return new double[] {
      BACKLOG / ((c.completed() - c.started()) / 1e9), BACKLOG / (c.durationMs() / 1e3)
    };
  }

  private double floor(int batch) throws SQLException {
    Instant now = Instant.now();
    ConferenceRoomReaperOptions o = ConferenceRoomReaperOptions.defaults();
    long t0 = System.nanoTime();
    long n =
        new Floors(dataSource("shipped_floor"))
            .setBased(now, Phase.EMPTY_ROOM.cutoff(now, o), batch);
    double rate = n / ((System.nanoTime() - t0) / 1e9);
    if (n != BACKLOG) {
      throw new IllegalStateException("set-based floor closed " + n + " of " + BACKLOG);
    }
    return rate;
  }

  /**
   * The template: schema, 1,000 live rooms, 100k history and the due backlog, then frozen (no
   * connection stays open, so it can be copied).
   */
  private void template() throws SQLException {
    admin("DROP DATABASE IF EXISTS " + TEMPLATE + " WITH (FORCE)");
    admin("CREATE DATABASE " + TEMPLATE);
    DataSource ds = dataSource(TEMPLATE);
    SchemaMigrations.migrate(ds);
    BenchData data = new BenchData(ds);
    data.liveRooms(1000);
    data.history(100_000);
    data.backlog(BACKLOG);
    data.exec("CHECKPOINT");
  }

  private void copy(String name) throws SQLException {
    // FORCE: the backend of a worker just stopped may not have noticed its client is gone yet.
    admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    admin("CREATE DATABASE " + name + " TEMPLATE " + TEMPLATE);
  }

  private void admin(String sql) throws SQLException {
    try (Connection c = dataSource("postgres").getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** Unpooled: no connection outlives its use, so the database can be copied or dropped. */
  private DataSource dataSource(String database) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(jdbcUrl.apply(database));
    return ds;
  }

  private Process start(List<String> command, String database, String name) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command);
    environment(pb, database);
    pb.redirectError(logs.resolve(name + ".stderr").toFile());
    return pb.start();
  }

  /**
   * What the launcher sees: the parent's environment without the knobs that would change what is
   * measured (JVM flags, archive off, log levels), and the database to use.
   */
  private void environment(ProcessBuilder pb, String database) {
    Map<String, String> env = pb.environment();
    env.keySet()
        .removeIf(
            k ->
                k.startsWith("SPRING_")
                    || k.startsWith("LOGGING_")
                    || k.startsWith("REAPER_")
                    || k.equals("JAVA_TOOL_OPTIONS")
                    || k.equals("JDK_JAVA_OPTIONS"));
    env.put("SPRING_DATASOURCE_URL", jdbcUrl.apply(database));
  }

  private void exec(List<String> command, Path log) throws IOException, InterruptedException {
    exec(command, log, "postgres");
  }

  private void exec(List<String> command, Path log, String database)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    environment(pb, database);
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed; see " + log);
    }
  }

  /**
   * A {@code run} worker with drain on, polling every second, on a database of its own: warmed by
   * the template's backlog, then each {@link #drain()} commits a new backlog in one transaction and
   * times the cycle that drains it.
   */
  private final class WarmWorker implements AutoCloseable {
    private final Process process;
    private final Lines lines;
    private final String database;
    private int cycles;

    WarmWorker(int batch, List<String> options) throws Exception {
      database = "shipped_warm";
      copy(database);
      List<String> command = new ArrayList<>(List.of(launcher.toString(), "run"));
      command.addAll(options);
      command.add("--reaper.polling-interval=1s");
      command.add("--server.port=0");
      process = start(command, database, "warm-" + batch + "-" + System.nanoTime());
      lines = new Lines(process);
      lines.start();
      // The template's backlog is the warm-up.
      awaitReaped(BACKLOG);
    }

    /** Commits a new backlog while the worker runs; returns rows/s of the cycle that drains it. */
    double drain() throws Exception {
      int seen = lines.reapingCycles();
      long committed;
      try (Connection c = dataSource(database).getConnection()) {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          for (String sql : BenchData.backlogInOneTransaction(BACKLOG)) {
            st.execute(sql);
          }
        }
        c.commit();
        committed = System.nanoTime();
      }
      awaitReaped(BACKLOG);
      long started = Long.MAX_VALUE;
      long completed = 0;
      int reaped = 0;
      for (int i = seen; i < lines.reapingCycles(); i++) {
        Lines.Cycle cycle = lines.reaping(i);
        if (cycle != null) {
          started = Math.min(started, Math.max(committed, cycle.started()));
          completed = Math.max(completed, cycle.completed());
          reaped += cycle.reaped();
        }
      }
      if (reaped != BACKLOG) {
        throw new IllegalStateException("warm worker reaped " + reaped + " of " + BACKLOG);
      }
      return BACKLOG / ((completed - started) / 1e9);
    }

    /** Waits until the reaping cycles after the last wait have closed {@code n} rooms. */
    private void awaitReaped(int n) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (true) {
        int reaped = 0;
        for (int i = cycles; i < lines.reapingCycles(); i++) {
          Lines.Cycle cycle = lines.reaping(i);
          reaped += cycle == null ? 0 : cycle.reaped();
        }
        if (reaped >= n) {
          cycles = lines.reapingCycles();
          return;
        }
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "warm worker reaped " + reaped + " of " + n + " (alive: " + process.isAlive() + ")");
        }
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      lines.join(10_000);
    }
  }

  /**
   * Reads a worker's stdout as it comes (a pipe, as in a container) and keeps, per cycle that
   * reaped, the arrival times of its {@code cycle started} and {@code cycle completed} lines.
   */
  private static final class Lines extends Thread {
    record Cycle(long started, long completed, int reaped, long durationMs) {}

    private final Process process;
    private final List<Cycle> reaping = new ArrayList<>();
    private long reapedLines;

    Lines(Process process) {
      super("shipped-drain-stdout");
      setDaemon(true);
      this.process = process;
    }

    @Override
    public void run() {
      long started = 0;
      try (BufferedReader r =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8), 1 << 16)) {
        String line;
        while ((line = r.readLine()) != null) {
          long now = System.nanoTime();
          if (line.contains("\"message\":\"conference reaped\"")) {
            synchronized (this) {
              reapedLines++;
            }
          } else if (line.contains("\"message\":\"cycle started\"")) {
            started = now;
          } else if (line.contains("\"message\":\"cycle completed\"")) {
            int reaped = group(EMPTY_TIMEOUT, line);
            if (reaped > 0) {
              synchronized (this) {
                reaping.add(new Cycle(started, now, reaped, group(DURATION_MS, line)));
              }
            }
          }
        }
      } catch (IOException e) {
        // The process ended; what was read stays.
      }
    }

    private static int group(Pattern p, String line) {
      Matcher m = p.matcher(line);
      return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    synchronized int reapingCycles() {
      return reaping.size();
    }

    synchronized Lines.@Nullable Cycle reaping(int i) {
      return i < reaping.size() ? reaping.get(i) : null;
    }

    synchronized long reapedLines() {
      return reapedLines;
    }
  }
}
