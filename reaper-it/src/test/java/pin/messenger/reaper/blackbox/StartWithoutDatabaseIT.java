package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TcpProxy;

/**
 * From outside, {@code bin/reaper run} started while PostgreSQL refuses every connection: the
 * process stays up (no CrashLoopBackOff), liveness UP, readiness DOWN, metrics served, one log line
 * for the outage; when the database answers it migrates and the first cycle follows within seconds.
 * A database that answers but is wrong still ends {@code run} with status 1.
 */
class StartWithoutDatabaseIT {
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(1))
          .build();

  /** Status and body of a GET, or -1 while nothing listens. */
  record Answer(int status, String body) {}

  static Answer get(int port, String path) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body());
    } catch (IOException e) {
      return new Answer(-1, String.valueOf(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(-1, "interrupted");
    }
  }

  static List<String> runArgs(int port, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--reaper.polling-interval=1s",
                "--spring.datasource.hikari.connection-timeout=2000"));
    args.addAll(List.of(extra));
    return args;
  }

  static long lines(ReaperWorker w, String message) throws IOException {
    long n = 0;
    try (var files = Files.list(w.log)) {
      for (Path f : files.toList()) {
        n +=
            Files.readAllLines(f, StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains("\"message\":\"" + message))
                .count();
      }
    }
    return n;
  }

  @Test
  void run_started_while_the_database_refuses_waits_observably_then_migrates_and_cycles()
      throws Exception {
    try (PostgresServer pg = PostgresServer.start();
        TcpProxy db = new TcpProxy()) {
      db.target(Integer.parseInt(pg.jdbcUrl().replaceAll(".*:(\\d+)/.*", "$1")));
      db.cut();
      int port = DependencyOutagesIT.freePort();
      Map<String, String> env =
          Map.of(
              "SPRING_DATASOURCE_URL",
              "jdbc:postgresql://127.0.0.1:" + db.port() + "/postgres",
              "SPRING_DATASOURCE_USERNAME",
              "postgres",
              "SPRING_DATASOURCE_PASSWORD",
              "");
      try (ReaperWorker w =
          ReaperWorker.start("nodb", env, ReliabilityHarness.JVM, runArgs(port))) {
        Await.until(
            "the HTTP side answers while the database refuses",
            Duration.ofSeconds(180),
            () -> get(port, "/actuator/health/liveness").status() > 0 || !w.alive(),
            () -> "\n" + w.tail(40));
        // Long enough for several attempts (waits of 1, 2, 4 s): one line, not one per attempt.
        Await.until(
            "the outage logged",
            Duration.ofSeconds(60),
            () -> {
              try {
                return lines(w, "database unavailable at start-up") > 0;
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            () -> "\n" + w.tail(40));
        Thread.sleep(8_000); // the database keeps refusing while the worker retries
        Answer liveness = get(port, "/actuator/health/liveness");
        Answer readiness = get(port, "/actuator/health/readiness");
        Answer metrics = get(port, "/actuator/prometheus");
        assertThat(w.alive())
            .as("still running while the database refuses:\n" + w.tail(40))
            .isTrue();
        assertThat(liveness.status() + " " + liveness.body()).startsWith("200").contains("\"UP\"");
        assertThat(readiness.status() + " " + readiness.body())
            .startsWith("503")
            .contains("\"DOWN\"");
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.body()).contains("messenger_conf_reaper_run_total");
        assertThat(lines(w, "database unavailable at start-up")).as("outage lines").isEqualTo(1);
        assertThat(w.cycles()).as("no cycle before the database answers").isEmpty();

        Instant restored = Instant.now();
        db.restore();
        Await.until(
            "a cycle completed after the database returned",
            Duration.ofSeconds(60),
            () -> !w.cycles().isEmpty() && w.cycles().get(0).completed(),
            () -> "\n" + w.tail(40));
        Instant firstCycle = w.cycles().get(0).at();
        double after = Duration.between(restored, firstCycle).toMillis() / 1e3;
        Await.until(
            "readiness UP",
            Duration.ofSeconds(60),
            () -> get(port, "/actuator/health/readiness").status() == 200);
        double ready = Duration.between(restored, Instant.now()).toMillis() / 1e3;
        System.out.println(
            "start without the database: first cycle "
                + after
                + " s after the database returned, readiness UP after "
                + ready
                + " s");
        assertThat(lines(w, "database available, starting")).isEqualTo(1);
        assertThat(w.cycles().get(0).lockAcquired()).isTrue();

        // It migrated: the schema is there and a due room is closed by the running worker.
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(pg.jdbcUrl());
        ds.setUser("postgres");
        Rooms rooms = new Rooms(ds);
        Rooms.Room room = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(3600)));
        Await.until(
            "the running worker closes a due room",
            Duration.ofSeconds(60),
            () -> "Ended".equals(rooms.status(room.id)));
      }
    }
  }

  @Test
  void run_against_a_database_that_answers_but_lacks_the_schema_still_exits_1() throws Exception {
    try (PostgresServer pg = PostgresServer.start()) {
      int port = DependencyOutagesIT.freePort();
      Path output = Files.createTempFile("reaper-run-wrong-schema", ".log");
      Process p =
          JarRunner.start(
              JarRunner.database(pg),
              ReliabilityHarness.JVM,
              output,
              runArgs(port, "--reaper.schema.migrate=false").toArray(String[]::new));
      boolean exited = JarRunner.finished(p, 180);
      String out = Files.readString(output, StandardCharsets.UTF_8);
      assertThat(exited).as("exited:\n" + out).isTrue();
      assertThat(p.exitValue()).as(out).isEqualTo(1);
      Optional<String> failed =
          out.lines().filter(l -> l.contains("\"message\":\"run failed")).findFirst();
      assertThat(failed).as(out).isPresent();
      assertThat(failed.get()).contains("conference_sessions");
      assertThat(out).doesNotContain("database unavailable at start-up");
      assertThat(p.waitFor(0, TimeUnit.SECONDS)).isTrue();
    }
  }
}
