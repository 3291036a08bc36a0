package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.testing.FakeMediaStack;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.KafkaTestSupport;
import pin.messenger.reaper.testing.MessengerLoad;
import pin.messenger.reaper.testing.Prerequisite;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * The packaged jar with PgBouncer (Debian's, 1.18) in <b>transaction</b> pooling mode between it
 * and PostgreSQL, the deployment the issue names. The datasource URL goes through PgBouncer with
 * {@code prepareThreshold=0}; migrations go straight to PostgreSQL ({@code SPRING_FLYWAY_URL}).
 * Proved through it: {@code migrate}; {@code run-once} with drain over the spec's closes, the Kafka
 * relay (in-process KRaft broker) and the recorder dispatcher (local HTTP server); {@code status}
 * and {@code explain}; four worker processes close each session once (invariant checker) while the
 * lock holder is frozen with SIGSTOP and another takes over after lock-ttl; and, without {@code
 * prepareThreshold=0}, the error a user would hit. Skipped, saying so, when pgbouncer is not
 * installed ({@code .ci/run} installs it).
 */
class PgBouncerIT {
  static final Duration TAKEOVER_BOUND =
      ReliabilityHarness.LOCK_TTL.plus(ReliabilityHarness.INTERVAL).plusSeconds(1);

  /** pgjdbc's named server-side statements ("S_1", …) met on the wrong server connection. */
  static final Pattern PREPARED_STATEMENT_ERROR =
      Pattern.compile(
          "\\[?(42P05|26000|08P01)\\]?[^\"]{0,40}ERROR: (prepared statement \\\\?\"S_\\d+\\\\?\""
              + " (already exists|does not exist)|bind message supplies \\d+ parameters, but"
              + " prepared statement \\\\?\"S_\\d+\\\\?\" requires \\d+)");

  @Test
  void the_worker_runs_behind_pgbouncer_in_transaction_mode() throws Exception {
    Prerequisite.require(
        "pgbouncer",
        PgBouncer.binary().isPresent(),
        "apt-get install pgbouncer (.ci/run installs it)");
    long t0 = System.nanoTime();
    PostgresServer pg = PostgresServer.start();
    try (ReliabilityHarness h = ReliabilityHarness.around(pg);
        PgBouncer bouncer = PgBouncer.start(pg);
        FakeMediaStack media = new FakeMediaStack()) {
      EmbeddedKafkaKraftBroker broker = KafkaTestSupport.broker(0, ConferenceEndedEvent.TOPIC);
      try {
        System.out.println(
            "pgbouncer: "
                + bouncer.jdbcUrl()
                + " (transaction mode) in front of "
                + pg.version
                + " "
                + pg.serverVersion);
        Map<String, String> env = new HashMap<>();
        env.put("SPRING_DATASOURCE_URL", bouncer.jdbcUrl());
        env.put("SPRING_DATASOURCE_USERNAME", "postgres");
        env.put("SPRING_DATASOURCE_PASSWORD", "");
        env.put("SPRING_FLYWAY_URL", pg.jdbcUrl());
        env.put("SPRING_FLYWAY_USER", "postgres");
        env.put("SPRING_FLYWAY_PASSWORD", "");
        env.put("SPRING_KAFKA_BOOTSTRAP_SERVERS", broker.getBrokersAsString());
        env.put("REAPER_RECORDER_BASE_URL", media.baseUrl().toString());

        // migrate: Flyway straight to PostgreSQL, the datasource through PgBouncer.
        JarRunner.Run migrate = JarRunner.run(env, "migrate");
        assertThat(migrate.exit()).as(migrate.stdout()).isZero();
        assertThat(migrate.lastLine()).contains("\"migrated\":true");

        // run-once with drain: the spec's closes, the relay and the recorder dispatcher.
        Rooms rooms = h.rooms;
        Instant now = Instant.now();
        for (int i = 0; i < 250; i++) {
          rooms.insert(Rooms.emptyActive(now.minusSeconds(200 + i)));
        }
        Room recorded = rooms.insert(Rooms.emptyActive(now.minusSeconds(150)));
        rooms.recording(recorded.id, "Recording", recorded.startedAt);
        rooms.insert(Rooms.provisioning(now.minusSeconds(180)));
        rooms.insert(Rooms.occupied(now.minus(Duration.ofHours(5)), 2));
        Room joined = rooms.insert(Rooms.occupied(now.minusSeconds(120), 1));
        JarRunner.Run once =
            JarRunner.run(
                env, "run-once", "--reaper.drain.enabled=true", "--reaper.batch-size=100");
        assertThat(once.exit()).as(once.stdout()).isZero();
        assertThat(once.json("emptyTimeout")).as(once.lastLine()).isEqualTo(251);
        assertThat(once.json("provisionFailed")).isEqualTo(1);
        assertThat(once.json("staleTimeout")).isEqualTo(1);
        assertThat(once.json("failed")).isZero();
        assertThat(once.json("published")).isEqualTo(252);
        assertThat(once.json("recorderStopsDelivered")).isEqualTo(1);
        assertThat(media.calls()).hasSize(1);
        assertThat(rooms.status(joined.id)).isEqualTo("Active");
        try (KafkaConsumer<String, byte[]> consumer =
            KafkaTestSupport.consumer(broker.getBrokersAsString(), ConferenceEndedEvent.TOPIC)) {
          assertThat(KafkaTestSupport.readUntil(consumer, r -> true, 252, Duration.ofSeconds(30)))
              .hasSize(252);
        }
        System.out.println("pgbouncer run-once: " + once.lastLine());

        // status and explain through PgBouncer.
        JarRunner.Run status = JarRunner.run(env, "status", "--json");
        assertThat(status.exit()).as(status.stdout()).isZero();
        assertThat(
                ((Number) JsonPath.read(status.lastLine(), "$.phases.empty-room.due")).intValue())
            .isZero();
        JarRunner.Run explain = JarRunner.run(env, "explain", joined.id.toString(), "--json");
        assertThat(explain.exit()).as(explain.stdout()).isZero();
        assertThat((String) JsonPath.read(explain.lastLine(), "$.phases.provision-timeout"))
            .startsWith("never: status is Active");
        assertThat((Boolean) JsonPath.read(explain.lastLine(), "$.rowLock.locked")).isFalse();

        fourRunnersAndAFrozenHolder(h, bouncer, env, t0);
      } finally {
        broker.destroy();
      }
    }
  }

  /**
   * Four worker processes through PgBouncer over a drain kept going by the feeder; the holder is
   * frozen once. Meanwhile {@code run-once --dry-run} without {@code prepareThreshold=0} shows the
   * error a user would hit (while the workers keep PgBouncer's server connections changing hands).
   */
  private static void fourRunnersAndAFrozenHolder(
      ReliabilityHarness h, PgBouncer bouncer, Map<String, String> env, long t0) throws Exception {
    Instant start = Instant.now();
    MessengerLoad.seed(h.rooms, 4_000, start);
    String withoutSetting;
    long takeoverMs;
    int frozenBackend;
    String frozenName;
    Instant lastResume;
    try (ReliabilityHarness.Feeder feeder = h.feed(500, Duration.ofMillis(500), 4_000, 7)) {
      List<ReaperWorker> workers = new ArrayList<>();
      for (int i = 1; i <= 4; i++) {
        Map<String, String> workerEnv = new HashMap<>(env);
        workerEnv.remove("SPRING_KAFKA_BOOTSTRAP_SERVERS"); // the relay is proved above
        workerEnv.remove("REAPER_RECORDER_BASE_URL");
        String extra = "--spring.datasource.hikari.data-source-properties.ApplicationName=reaper-W";
        workers.add(h.worker("W" + i, workerEnv, extra + i));
      }
      for (ReaperWorker w : workers) {
        w.awaitStarted(Duration.ofSeconds(180));
      }
      withoutSetting = withoutPrepareThreshold(bouncer, env);

      // Freeze whichever worker holds the run lock.
      ReaperWorker frozen;
      Instant stoppedAt;
      while (true) {
        ReliabilityHarness.Holder holder = awaitHolder(h, Duration.ofSeconds(60));
        frozen =
            workers.stream()
                .filter(w -> holder.application().equals("reaper-" + w.name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("unknown holder " + holder));
        frozen.signal("STOP");
        stoppedAt = Instant.now();
        Optional<ReliabilityHarness.Holder> still = h.holder();
        if (still.isPresent() && still.get().equals(holder)) {
          frozenBackend = holder.pid();
          break;
        }
        frozen.signal("CONT");
      }
      frozenName = frozen.name;
      String frozenApp = "reaper-" + frozen.name;
      takeoverMs = -1;
      long deadline = System.nanoTime() + TAKEOVER_BOUND.multipliedBy(3).toNanos();
      while (System.nanoTime() < deadline) {
        Optional<ReliabilityHarness.Holder> holder = h.holder();
        if (holder.isPresent() && !holder.get().application().equals(frozenApp)) {
          takeoverMs = Duration.between(stoppedAt, Instant.now()).toMillis();
          break;
        }
        Thread.sleep(50);
      }
      frozen.signal("CONT");
      lastResume = Instant.now();
      System.out.printf(
          "pgbouncer hung-holder: froze %s (backend %d) holding the lock; another worker held it after %d ms%n",
          frozenName, frozenBackend, takeoverMs);
      assertThat(takeoverMs)
          .as("takeover through PgBouncer")
          .isBetween(0L, TAKEOVER_BOUND.toMillis());
      // Every worker runs on after the resume (the resumed one too) before the feeder's count is
      // read.
      Instant resumed = lastResume;
      Await.until(
          "every worker completes a cycle after " + frozenName + " resumes",
          Duration.ofSeconds(30),
          () -> workers.stream().allMatch(w -> w.completedSince(resumed) > 0),
          () -> "; " + h.cyclesPerWorker());
      assertThat(feeder.errors.get()).isZero();
    }
    Instant settledAt = h.settle(Duration.ofSeconds(60));
    long cycles = h.workers.stream().mapToLong(w -> w.cycles().size()).sum();
    long skipped =
        h.workers.stream()
            .mapToLong(w -> w.cycles().stream().filter(ReaperWorker.CycleEvent::skipped).count())
            .sum();
    long failedCycles =
        h.workers.stream()
            .mapToLong(w -> w.cycles().stream().filter(c -> c.kind().equals("failed")).count())
            .sum();
    String perWorker = h.cyclesPerWorker();
    h.stopWorkers();
    List<String> violations = h.violations(settledAt, lastResume);
    InvariantChecker.Figures f = h.figures();
    System.out.printf(
        "scenario pgbouncer: conferences=%d runners=4 (processes, PgBouncer 1.18 transaction mode)"
            + " cycles=%d lockHeld=%d failedCycles=%d (cycles/skipped/failed per worker: %s)"
            + " frozen=%s takeoverMs=%d boundMs=%d"
            + " reaperClosedEnded=%d failed=%d stillActive=%d violations=%d durationS=%d%n"
            + "without prepareThreshold=0: %s%n",
        f.conferences(),
        cycles,
        skipped,
        failedCycles,
        perWorker,
        frozenName,
        takeoverMs,
        TAKEOVER_BOUND.toMillis(),
        f.ended(),
        f.failed(),
        f.active(),
        violations.size(),
        (System.nanoTime() - t0) / 1_000_000_000,
        withoutSetting);
    assertThat(violations).isEmpty();
    assertThat(withoutSetting)
        .as("run-once through PgBouncer without prepareThreshold=0 fails on a prepared statement")
        .isNotEqualTo("no error");
  }

  /**
   * {@code run-once --dry-run} through PgBouncer with pgjdbc's default prepareThreshold (5): once a
   * statement has run five times on a connection, pgjdbc names it on the server ("S_1") and later
   * binds it by name, but PgBouncer may hand the next transaction another server connection. A few
   * test connections keep server connections changing hands meanwhile. Returns the first such error
   * (tried up to three times), or "no error".
   */
  private static String withoutPrepareThreshold(PgBouncer bouncer, Map<String, String> env)
      throws Exception {
    Map<String, String> raw = new HashMap<>(env);
    // Server-side statements from the first execution (pgjdbc's default waits for the fifth): the
    // same failure as the default's, without depending on how many times one run happens to repeat
    // a statement before the server connections change hands (with the default a run can miss it).
    raw.put("SPRING_DATASOURCE_URL", bouncer.rawJdbcUrl() + "?prepareThreshold=1");
    raw.remove("SPRING_FLYWAY_URL"); // Flyway too goes through PgBouncer, as a naive setup would
    raw.remove("SPRING_FLYWAY_USER");
    raw.remove("SPRING_FLYWAY_PASSWORD");
    raw.remove("SPRING_KAFKA_BOOTSTRAP_SERVERS");
    raw.remove("REAPER_RECORDER_BASE_URL");
    AtomicBoolean churning = new AtomicBoolean(true);
    List<Thread> churn = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Thread t =
          new Thread(
              () -> {
                try (Connection c = DriverManager.getConnection(bouncer.jdbcUrl(), "postgres", "");
                    Statement st = c.createStatement()) {
                  c.setAutoCommit(false);
                  while (churning.get()) {
                    st.execute("SELECT pg_sleep(0.003)");
                    c.commit();
                  }
                } catch (Exception e) {
                  // Churn only; the run-once result is what counts.
                }
              },
              "pgbouncer-churn-" + i);
      t.setDaemon(true);
      t.start();
      churn.add(t);
    }
    try {
      for (int attempt = 1; attempt <= 5; attempt++) {
        JarRunner.Run run = JarRunner.run(raw, "run-once", "--dry-run");
        Matcher m = PREPARED_STATEMENT_ERROR.matcher(run.stdout());
        if (m.find()) {
          return "exit " + run.exit() + ", " + m.group().replace("\\\"", "\"");
        }
        System.out.println(
            "without prepareThreshold=0, attempt " + attempt + ": no error; " + run.lastLine());
      }
      return "no error";
    } finally {
      churning.set(false);
      for (Thread t : churn) {
        t.join(5_000);
      }
    }
  }

  private static ReliabilityHarness.Holder awaitHolder(ReliabilityHarness h, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<ReliabilityHarness.Holder> holder = h.holder();
      if (holder.isPresent() && holder.get().application().startsWith("reaper-W")) {
        return holder.get();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no worker held the run lock within " + timeout);
      }
      Thread.sleep(20);
    }
  }
}
