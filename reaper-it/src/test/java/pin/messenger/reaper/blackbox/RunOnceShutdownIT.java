package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.testing.FakeMediaStack;
import pin.messenger.reaper.testing.Rooms;

/**
 * From outside, SIGTERM reaches {@code run-once}'s delivery pass: with the recorder endpoint hung
 * (answers never come, read timeout and pass budget a minute or more), the pass stops at once, the
 * process exits with the signal's status (143) after printing its document, and the stop request
 * stays pending for the next run, which delivers it (at-least-once).
 */
class RunOnceShutdownIT {
  /** Far beyond the exit bound asserted below: only a pass that sees the SIGTERM ends sooner. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(90);

  static final Duration PASS_BUDGET = Duration.ofSeconds(60);

  /** JVM shutdown on a loaded 2-core machine, with margin; the pass itself ends in milliseconds. */
  static final Duration EXIT_BOUND = Duration.ofSeconds(20);

  @Test
  void sigterm_during_the_delivery_pass_ends_it_promptly_and_leaves_the_request_pending()
      throws Exception {
    try (PostgresServer pg = PostgresServer.startMigrated();
        FakeMediaStack media = new FakeMediaStack()) {
      Map<String, String> env = new HashMap<>(JarRunner.database(pg));
      env.put("REAPER_RECORDER_BASE_URL", media.baseUrl().toString());
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setUrl(pg.jdbcUrl());
      ds.setUser("postgres");
      Rooms rooms = new Rooms(ds);
      Rooms.Room room = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(600)));
      rooms.recording(room.id, "Recording", room.startedAt);
      media.hang();

      Path output = Files.createTempFile("reaper-run-once-sigterm", ".log");
      Process p =
          JarRunner.start(
              env,
              ReliabilityHarness.JVM,
              output,
              "run-once",
              "--reaper.recorder.read-timeout=" + READ_TIMEOUT.toSeconds() + "s",
              "--reaper.recorder.lease=5m",
              "--reaper.max-run-duration=" + PASS_BUDGET.toSeconds() + "s");
      try {
        assertThat(media.awaitCalls(1, Duration.ofSeconds(180)))
            .as("the delivery pass called the recorder:\n" + Files.readString(output))
            .isTrue();
        long signalled = System.nanoTime();
        p.destroy(); // SIGTERM (bin/reaper execs the JVM)
        boolean exited = JarRunner.finished(p, 120);
        Duration exit = Duration.ofNanos(System.nanoTime() - signalled);
        String out = Files.readString(output, StandardCharsets.UTF_8);
        System.out.println(
            "run-once: SIGTERM during the delivery pass (recorder hung) -> exit in "
                + exit.toMillis()
                + " ms");
        assertThat(exited).as(out).isTrue();
        assertThat(exit).as(out).isLessThan(EXIT_BOUND);
        assertThat(p.exitValue()).as("the signal's status: " + out).isEqualTo(143);
        String last = out.strip().lines().reduce((a, b) -> b).orElse("");
        assertThat(last).as("the document is the last line").startsWith("{");
        assertThat(last).contains("\"emptyTimeout\":1").contains("\"recorderStopsDelivered\":0");
      } finally {
        JarRunner.finished(p, 0);
      }
      assertThat(
              rooms.count(
                  "SELECT count(*) FROM messenger.recorder_stop_requests WHERE delivered_at IS NULL"))
          .as("the stop request stays pending")
          .isEqualTo(1);

      media.release();
      JarRunner.Run next = JarRunner.run(env, "run-once");
      assertThat(next.exit()).as(next.stdout()).isZero();
      assertThat(next.json("recorderStopsDelivered")).as(next.stdout()).isEqualTo(1);
      assertThat(
              rooms.count(
                  "SELECT count(*) FROM messenger.recorder_stop_requests WHERE delivered_at IS NULL"))
          .isZero();
    }
  }
}
