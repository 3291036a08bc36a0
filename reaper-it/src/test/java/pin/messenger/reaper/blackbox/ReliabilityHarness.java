package pin.messenger.reaper.blackbox;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.Rooms;

/**
 * What the black-box reliability scenarios share: a PostgreSQL server of its own with the schema
 * from {@code migrate}, worker processes of the packaged jar ({@code run}) with short timings, a
 * feeder that keeps a drain going, the settle step (wait until the workers leave nothing due) and
 * the invariant checker.
 */
final class ReliabilityHarness implements AutoCloseable {
  static final boolean SOAK = Boolean.getBoolean("reaper.soak");

  static final Duration INTERVAL = Duration.ofSeconds(1);
  static final Duration GRACE = Duration.ofSeconds(3);
  static final Duration PROVISION = Duration.ofSeconds(5);
  static final Duration STALE = Duration.ofSeconds(20);
  static final Duration LOCK_TTL = Duration.ofSeconds(5);
  static final Duration MAX_RUN = Duration.ofSeconds(3);
  static final Duration STATEMENT = Duration.ofSeconds(1);
  static final int BATCH = 200;

  /**
   * Slack on top of the polling interval for the empty-room SLO check: three JVMs (test + two
   * workers) and the server share a 2-core machine, so a tick can start late by a few hundred
   * milliseconds.
   */
  static final Duration SLO_TOLERANCE = Duration.ofSeconds(1);

  /**
   * Start-up flags of the worker JVMs ({@link JarRunner#JVM}): two Spring Boot workers starting at
   * once on two cores take ~15 s instead of ~40 s; a restarted worker is back sooner.
   */
  static final List<String> JVM = JarRunner.JVM;

  static final String LOCK_HOLDER =
      """
      SELECT a.pid, a.application_name
        FROM pg_locks l JOIN pg_stat_activity a USING (pid)
       WHERE l.locktype = 'advisory' AND l.granted
         AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended('messenger.conference_room_reaper', 0)
      """;

  static final String DUE =
      """
      SELECT count(*) FROM messenger.conference_sessions s
       WHERE s.reaper_last_error IS NULL AND (
             (s.status = 'Active' AND s.active_participant_count = 0 AND s.last_activity_at <= ?::timestamptz - %s)
          OR (s.status = 'Provisioning' AND s.created_at <= ?::timestamptz - %s)
          OR (s.status = 'Active' AND s.last_activity_at <= ?::timestamptz - %s))
      """
          .formatted(ms(GRACE), ms(PROVISION), ms(STALE));

  final PostgresServer server;
  final PGSimpleDataSource dataSource;
  final Rooms rooms;
  final List<ReaperWorker> workers = new ArrayList<>();

  private ReliabilityHarness(PostgresServer server) {
    this.server = server;
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(server.jdbcUrl());
    ds.setUser("postgres");
    ds.setApplicationName("reliability-test");
    this.dataSource = ds;
    this.rooms = new Rooms(ds);
  }

  /**
   * A fresh server with the schema the jar's {@code migrate} applies ({@link
   * PostgresServer#startMigrated}).
   */
  static ReliabilityHarness start() throws Exception {
    long t0 = System.nanoTime();
    PostgresServer server = PostgresServer.startMigrated();
    System.out.println(
        "reliability server: "
            + server.version
            + " at "
            + server.jdbcUrl()
            + " (started in "
            + (System.nanoTime() - t0) / 1_000_000
            + " ms)");
    return new ReliabilityHarness(server);
  }

  /**
   * A harness around a server that is already running and migrated (e.g. one reached through
   * PgBouncer by the workers); it stops the server on close.
   */
  static ReliabilityHarness around(PostgresServer server) {
    return new ReliabilityHarness(server);
  }

  /**
   * A small pool for {@link pin.messenger.reaper.testing.MessengerLoad}'s commands: {@link
   * #dataSource} opens a session per call, and at the load's rate that is a backend forked for
   * every command. It sees every server restart a scenario makes, and gives up on a connection
   * after 2 s rather than 30.
   */
  HikariDataSource commandPool() {
    // Its WARN stack traces at each restart would drown the scenario's output.
    if (org.slf4j.LoggerFactory.getLogger("com.zaxxer.hikari")
        instanceof ch.qos.logback.classic.Logger l) {
      l.setLevel(ch.qos.logback.classic.Level.ERROR);
    }
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(server.jdbcUrl());
    ds.setUsername("postgres");
    ds.setMaximumPoolSize(6);
    ds.setConnectionTimeout(2_000);
    ds.addDataSourceProperty("ApplicationName", "messenger-load");
    return ds;
  }

  /** {@code run} with the scenario timings, an ephemeral HTTP port, and {@code extra} options. */
  static List<String> runArgs(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--server.port=0",
                "--reaper.polling-interval=" + INTERVAL.toMillis() + "ms",
                "--reaper.empty-room-grace=" + GRACE.toMillis() + "ms",
                "--reaper.provision-timeout=" + PROVISION.toMillis() + "ms",
                "--reaper.stale-live-timeout=" + STALE.toMillis() + "ms",
                "--reaper.lock-ttl=" + LOCK_TTL.toMillis() + "ms",
                "--reaper.max-run-duration=" + MAX_RUN.toMillis() + "ms",
                "--reaper.statement-timeout=" + STATEMENT.toMillis() + "ms",
                "--reaper.drain.enabled=true",
                "--reaper.batch-size=" + BATCH));
    args.addAll(List.of(extra));
    return args;
  }

  /** Starts a worker process (not waiting for it to be up). */
  ReaperWorker worker(String name, String... extra) throws Exception {
    ReaperWorker w = ReaperWorker.start(name, JarRunner.database(server), JVM, runArgs(extra));
    workers.add(w);
    return w;
  }

  /** Starts a worker process with its own database environment (e.g. a URL through PgBouncer). */
  ReaperWorker worker(String name, Map<String, String> env, String... extra) throws Exception {
    ReaperWorker w = ReaperWorker.start(name, env, JVM, runArgs(extra));
    workers.add(w);
    return w;
  }

  /** The backend holding the run lock right now, if any. */
  record Holder(int pid, String application) {}

  Optional<Holder> holder() {
    List<Map<String, Object>> rows = rooms.query(LOCK_HOLDER);
    return rows.isEmpty()
        ? Optional.empty()
        : Optional.of(
            new Holder(
                ((Number) rows.get(0).get("pid")).intValue(),
                (String) rows.get(0).get("application_name")));
  }

  /** Conferences due at {@code at} (the checker's liveness predicate: poison rows excepted). */
  long dueAt(Instant at) {
    return rooms.count(DUE, Rooms.ts(at), Rooms.ts(at), Rooms.ts(at));
  }

  /**
   * Settle: waits until the (still running) workers leave nothing due, by polling the database;
   * returns the moment of the poll that found nothing due (the checker's {@code settledAt}).
   */
  Instant settle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Instant at = Instant.now();
      long due = dueAt(at);
      if (due == 0) {
        return at;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            due
                + " conferences still due "
                + timeout
                + " after the scenario ended: "
                + rooms.query(
                    DUE.replace("SELECT count(*)", "SELECT s.*, now() AS db_now") + " LIMIT 5",
                    Rooms.ts(at),
                    Rooms.ts(at),
                    Rooms.ts(at))
                + "; workers: "
                + workers.stream()
                    .map(w -> w.name + (w.alive() ? " alive" : " dead") + " log " + w.log)
                    .toList());
      }
      Thread.sleep(200);
    }
  }

  /** The invariant checker's findings; call it once the workers are stopped. */
  List<String> violations(Instant settledAt, Instant sloFrom) {
    indexForChecker();
    return new InvariantChecker(dataSource)
        .violations(settledAt, sloFrom, GRACE, PROVISION, STALE, INTERVAL, SLO_TOLERANCE);
  }

  /**
   * Test-only indexes for the checker's correlated look-ups (outbox rows by deal key, by conference
   * id; realtime rows by conference), created after the workers have stopped, so they change
   * nothing the workers did. Without them the checker's queries are quadratic: minutes over 20,000+
   * conferences instead of seconds.
   */
  private void indexForChecker() {
    rooms.exec(
        "CREATE INDEX IF NOT EXISTS checker_outbox_key ON messenger.integration_outbox (message_key)");
    rooms.exec(
        "CREATE INDEX IF NOT EXISTS checker_outbox_conference"
            + " ON messenger.integration_outbox ((payload->>'conferenceId'))");
    rooms.exec(
        "CREATE INDEX IF NOT EXISTS checker_realtime_conference ON messenger.realtime_outbox (conference_id)");
    rooms.exec(
        "ANALYZE messenger.conference_sessions, messenger.integration_outbox, messenger.realtime_outbox");
  }

  InvariantChecker.Figures figures() {
    return new InvariantChecker(dataSource).figures();
  }

  /**
   * Each worker's cycles, for a scenario line: {@code W1 31/2/1} is 31 cycles, 2 of them skipped
   * because another runner held the lock, 1 failed (one count per cycle).
   */
  String cyclesPerWorker() {
    return workers.stream()
        .map(
            w -> {
              List<ReaperWorker.CycleEvent> c = w.cycles();
              return w.name
                  + " "
                  + c.size()
                  + "/"
                  + c.stream().filter(ReaperWorker.CycleEvent::skipped).count()
                  + "/"
                  + c.stream().filter(e -> !e.completed()).count();
            })
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** Stops every worker (SIGTERM, SIGKILL after 20 s); each is tried even if another fails. */
  void stopWorkers() {
    for (ReaperWorker w : workers) {
      w.close();
    }
  }

  @Override
  public void close() throws Exception {
    try {
      stopWorkers();
    } finally {
      server.close();
    }
  }

  static String ms(Duration d) {
    return "interval '" + d.toMillis() + " milliseconds'";
  }

  /**
   * Keeps a drain going: every {@code period}, while fewer than {@code maxLive} conferences are
   * Provisioning/Active, inserts {@code chunk} conferences that are already overdue (empty rooms
   * idle for 100 s–1 h, Provisioning for 130 s–1 h, rooms silent for over 4 h), the overdue kinds
   * of {@code MessengerLoad.seed}. Their windows ended long before the run, so the SLO check does
   * not bind them. Insert failures (the server is restarting) are counted.
   */
  Feeder feed(int chunk, Duration period, int maxLive, long seed) {
    Feeder f = new Feeder(chunk, period, maxLive, seed);
    f.thread.start();
    return f;
  }

  final class Feeder implements AutoCloseable {
    final AtomicLong inserted = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    private Feeder(int chunk, Duration period, int maxLive, long seed) {
      Random random = new Random(seed);
      thread =
          new Thread(
              () -> {
                while (running.get()) {
                  try {
                    long live = liveCount();
                    if (live < maxLive) {
                      Instant now = Instant.now();
                      List<Rooms.Room> batch = new ArrayList<>(chunk);
                      for (int i = 0; i < chunk; i++) {
                        int kind = random.nextInt(60);
                        batch.add(
                            kind < 35
                                ? Rooms.emptyActive(now.minusSeconds(100 + random.nextInt(3600)))
                                : kind < 50
                                    ? Rooms.provisioning(
                                        now.minusSeconds(130 + random.nextInt(3600)))
                                    : Rooms.occupied(
                                        now.minusSeconds(4 * 3600 + 10 + random.nextInt(3600)), 2));
                      }
                      rooms.insertAll(batch);
                      inserted.addAndGet(chunk);
                    }
                  } catch (RuntimeException e) {
                    errors.incrementAndGet();
                  }
                  try {
                    Thread.sleep(period.toMillis());
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "feeder");
      thread.setDaemon(true);
    }

    private long liveCount() {
      try (Connection c = dataSource.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT count(*) FROM messenger.conference_sessions WHERE status IN ('Provisioning', 'Active')");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.interrupt();
      thread.join(10_000);
    }
  }
}
