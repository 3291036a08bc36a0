package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.Rooms;

/**
 * The next-due schedule from outside: two worker processes of the jar at a polling interval of 15 s
 * close every room within about a second of its window, not within a polling interval. Rooms empty
 * the way the messenger empties them (count → 0, {@code last_activity_at} = now) at scattered
 * instants, one just after a cycle's due read, one gets a participant back within the grace; a
 * paused phase's room is never woken for; SIGTERM while a worker waits for its next start ends it
 * at once. The ceiling on lateness (5 s) is generous for a loaded machine yet a third of the
 * interval: under {@code reaper.schedule=fixed} rooms wait up to 15 s, so the fixed schedule fails
 * it (all seven under 5 s by chance: (1/3)^7, 0.05 %; run with {@code -Dnextdue.schedule=fixed} to
 * see it red).
 */
class NextDueScheduleIT {
  static final Duration INTERVAL = Duration.ofSeconds(15);
  static final Duration GRACE = Duration.ofSeconds(16);
  static final Duration PROVISION = Duration.ofSeconds(25);
  static final Duration LATENESS_CEILING = Duration.ofSeconds(5);
  static final Duration SIGTERM_WAIT = Duration.ofSeconds(10);
  static final String SCHEDULE = System.getProperty("nextdue.schedule", "next-due");

  static List<String> args() {
    return List.of(
        "run",
        "--server.port=0",
        "--reaper.schedule=" + SCHEDULE,
        "--reaper.polling-interval=" + INTERVAL.toSeconds() + "s",
        "--reaper.empty-room-grace=" + GRACE.toSeconds() + "s",
        "--reaper.provision-timeout=" + PROVISION.toSeconds() + "s",
        "--logging.level.pin.messenger.reaper.core.ReaperLoop=DEBUG");
  }

  @Test
  void two_runners_close_each_room_within_a_second_of_its_window_and_wake_for_no_paused_phase()
      throws Exception {
    try (ReliabilityHarness h = ReliabilityHarness.start()) {
      Rooms rooms = h.rooms;
      JarRunner.Split pause =
          JarRunner.runSplit(
              JarRunner.database(h.server),
              ReliabilityHarness.JVM,
              "pause",
              "--phase",
              "provision-timeout",
              "--reason",
              "next-due test",
              "--actor",
              "it");
      assertThat(pause.exit()).as(pause.stderr()).isZero();
      Instant t0 = Instant.now();
      // Occupied rooms the "messenger" will empty, one that will come back, one provisioning room
      // (its phase paused).
      List<UUID> toEmpty = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        toEmpty.add(rooms.insert(Rooms.occupied(t0, 2)).id);
      }
      UUID comesBack = rooms.insert(Rooms.occupied(t0, 1)).id;
      UUID afterRead = rooms.insert(Rooms.occupied(t0, 1)).id;
      UUID provisioning = rooms.insert(Rooms.provisioning(t0)).id;

      ReaperWorker a =
          ReaperWorker.start("a", JarRunner.database(h.server), ReliabilityHarness.JVM, args());
      ReaperWorker b =
          ReaperWorker.start("b", JarRunner.database(h.server), ReliabilityHarness.JVM, args());
      try {
        a.awaitStarted(Duration.ofSeconds(180));
        b.awaitStarted(Duration.ofSeconds(180));

        // Empty the rooms at scattered instants, as participants leave.
        long[] offsetsMs = {0, 650, 1_850, 2_050, 4_450, 6_250};
        long base = System.nanoTime();
        for (int i = 0; i < toEmpty.size(); i++) {
          long wait = offsetsMs[i] - (System.nanoTime() - base) / 1_000_000;
          if (wait > 0) {
            Thread.sleep(wait);
          }
          empty(rooms, toEmpty.get(i));
        }
        empty(rooms, comesBack);
        // A room emptied just after a cycle (and so its due read): the next read must still see it
        // in time.
        int cyclesBefore = a.cycles().size() + b.cycles().size();
        Await.until(
            "a cycle completes",
            Duration.ofSeconds(60),
            () -> a.cycles().size() + b.cycles().size() > cyclesBefore);
        empty(rooms, afterRead);
        Thread.sleep(3_000);
        // The participant comes back within the grace: a join, count 1, activity now.
        rooms.exec(
            "UPDATE messenger.conference_sessions SET active_participant_count = 1,"
                + " last_activity_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = ?",
            comesBack);

        List<UUID> closing = new ArrayList<>(toEmpty);
        closing.add(afterRead);
        Await.until(
            "every emptied room closed",
            GRACE.plus(INTERVAL).plus(Duration.ofSeconds(60)),
            () -> closing.stream().allMatch(id -> rooms.status(id).equals("Ended")),
            () -> "; worker a:\n" + a.tail(20));

        List<String> lateness = new ArrayList<>();
        for (UUID id : closing) {
          Map<String, Object> row = rooms.row(id);
          Instant due = instant(row.get("last_activity_at")).plus(GRACE);
          Instant ended = instant(row.get("ended_at"));
          Duration late = Duration.between(due, ended);
          lateness.add(id + " " + late.toMillis() + " ms");
          assertThat(late)
              .as("%s closed before its window", id)
              .isGreaterThanOrEqualTo(Duration.ZERO);
          assertThat(late)
              .as("%s lateness under schedule=%s (all: %s)", id, SCHEDULE, lateness)
              .isLessThan(LATENESS_CEILING);
        }
        System.out.println("next-due IT lateness (" + SCHEDULE + "): " + lateness);
        for (UUID id : closing) {
          assertThat(
                  rooms.count(
                      "SELECT count(*) FROM messenger.realtime_outbox WHERE conference_id = ?", id))
              .as("%s closed once", id)
              .isEqualTo(1);
        }
        assertThat(rooms.status(comesBack)).isEqualTo("Active");
        // The provisioning room fell due at t0 + 25 s while its phase was paused: still there, and
        // no runner ever scheduled a start for its phase.
        Await.until(
            "the paused room is past its window",
            Duration.ofSeconds(120),
            () -> Instant.now().isAfter(t0.plus(PROVISION).plusSeconds(3)));
        assertThat(rooms.status(provisioning)).isEqualTo("Provisioning");
        String logs = logs(a) + logs(b);
        assertThat(logs).contains("\"message\":\"next cycle scheduled\"");
        assertThat(logs).doesNotContain("\"reason\":\"provision-timeout\"");
        if (SCHEDULE.equals("next-due")) {
          assertThat(logs).contains("\"reason\":\"empty-room\"");
        }

        // SIGTERM while waiting for the next start (nothing due but the paused room: the tick, up
        // to 15 s away): the worker exits at once, not when the wait ends. Sent once a's last
        // scheduled start is at least 10 s away, so an exit within the bound (5 s) is not the wait
        // ending.
        Await.until(
            "worker a waits at least 10 s for its next start",
            Duration.ofSeconds(60),
            () -> nextStart(a).isAfter(Instant.now().plus(SIGTERM_WAIT)));
        long stop = System.nanoTime();
        a.signal("TERM");
        Await.until("worker a exits after SIGTERM", Duration.ofSeconds(60), () -> !a.alive());
        Duration exit = Duration.ofNanos(System.nanoTime() - stop);
        System.out.println(
            "next-due IT: exit after SIGTERM while sleeping took " + exit.toMillis() + " ms");
        assertThat(exit).isLessThan(SIGTERM_WAIT.minusSeconds(5));
      } finally {
        a.close();
        b.close();
      }
    }
  }

  static void empty(Rooms rooms, UUID id) {
    rooms.exec(
        "UPDATE messenger.conference_sessions SET active_participant_count = 0,"
            + " last_activity_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = ?",
        id);
  }

  static Instant instant(Object ts) {
    if (ts instanceof Instant i) {
      return i;
    }
    return ts instanceof OffsetDateTime o ? o.toInstant() : ((java.sql.Timestamp) ts).toInstant();
  }

  /**
   * When the worker's last "next cycle scheduled" line says its next cycle starts; the epoch when
   * it has logged none. A cycle runs from that instant on, so an instant in the past means it may
   * be in a cycle now.
   */
  static Instant nextStart(ReaperWorker w) {
    String logs;
    try {
      logs = logs(w);
    } catch (Exception e) {
      throw new IllegalStateException("reading worker " + w.name + "'s log", e);
    }
    return logs.lines()
        .filter(l -> l.contains("\"message\":\"next cycle scheduled\""))
        .reduce((x, y) -> y)
        .map(l -> Instant.parse(JsonPath.<String>read(l, "$.at")))
        .orElse(Instant.EPOCH);
  }

  static String logs(ReaperWorker w) throws Exception {
    StringBuilder out = new StringBuilder();
    try (Stream<Path> files = Files.list(w.log)) {
      for (Path f : files.toList()) {
        out.append(Files.readString(f));
      }
    }
    return out.toString();
  }
}
