package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.testing.LiveKitEgressServer;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * From outside: the packaged jar with {@code reaper.recorder.kind=livekit} (configured through the
 * environment, as the README documents) against a local server speaking LiveKit Egress's Twirp API
 * and checking its token as LiveKit does ({@link LiveKitEgressServer}). A reaped room's recording
 * is stopped by its egress id; an egress LiveKit no longer knows counts as stopped; a recording
 * without an egress id is given up without a call; a refused credential is given up at the first
 * refusal under {@code run} (no retry storm), logged and counted. One PostgreSQL for the class.
 */
class LiveKitRecorderBlackBoxIT {
  static final String API_KEY = "APIreaperBlackBox";
  static final String API_SECRET = "a-livekit-secret-for-the-black-box-run-0123";
  static final String WRONG_SECRET = "a-rotated-livekit-secret-nobody-told-us-4567";

  static final Pattern GAVE_UP_COUNTER =
      Pattern.compile(
          "(?m)^messenger_conf_reaper_recorder_stop_gave_up_total(?:\\{[^}]*})? (\\S+)$");

  static PostgresServer pg;
  static Rooms rooms;
  LiveKitEgressServer livekit;

  @BeforeAll
  static void startDatabase() throws Exception {
    pg = PostgresServer.startMigrated();
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(pg.jdbcUrl());
    ds.setUser("postgres");
    rooms = new Rooms(ds);
  }

  @AfterAll
  static void stopDatabase() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  @BeforeEach
  void startLiveKit() throws Exception {
    rooms.truncateAll();
    livekit = new LiveKitEgressServer(API_KEY, API_SECRET);
  }

  @AfterEach
  void stopLiveKit() {
    livekit.close();
  }

  /** The worker's environment for kind livekit, with the API secret it is given. */
  Map<String, String> env(String apiSecret) {
    Map<String, String> env = new HashMap<>(JarRunner.database(pg));
    env.put("REAPER_RECORDER_KIND", "livekit");
    env.put("REAPER_RECORDER_LIVEKIT_URL", livekit.url().toString());
    env.put("REAPER_RECORDER_LIVEKIT_APIKEY", API_KEY);
    env.put("REAPER_RECORDER_LIVEKIT_APISECRET", apiSecret);
    return env;
  }

  /**
   * A room empty past the grace with a recording in progress whose egress id is {@code egressId}.
   */
  record Recorded(Room room, UUID recording) {}

  Recorded emptyRoomRecording(String egressId) {
    // The room becomes due only once its recording and egress id are written, as the messenger
    // writes them: a running worker would otherwise close it in between, with no recording to
    // stop or without the egress id.
    Instant now = Instant.now();
    Room notYetDue = Rooms.emptyActive(now.minusSeconds(300));
    notYetDue.lastActivityAt = now.plusSeconds(3600);
    notYetDue.activeParticipants = 1;
    Room room = rooms.insert(notYetDue);
    UUID recording = rooms.recording(room.id, "Recording", now.minusSeconds(900));
    rooms.exec(
        "UPDATE messenger.call_recordings SET external_id = ? WHERE id = ?", egressId, recording);
    rooms.exec(
        "UPDATE messenger.conference_sessions SET active_participant_count = 0,"
            + " last_activity_at = ? WHERE id = ?",
        Rooms.ts(now.minusSeconds(300)),
        room.id);
    return new Recorded(room, recording);
  }

  Map<String, Object> stopRequest(UUID recording) {
    List<Map<String, Object>> rows =
        rooms.query(
            "SELECT * FROM messenger.recorder_stop_requests WHERE recording_id = ?", recording);
    assertThat(rows).as("stop requests of recording " + recording).hasSize(1);
    return rows.get(0);
  }

  @Test
  void run_once_with_kind_livekit_stops_the_egress_of_the_reaped_rooms_recording()
      throws Exception {
    Recorded r = emptyRoomRecording("EG_blackBox1");
    livekit.egress("EG_blackBox1", r.room().id.toString());
    // Two more reaped rooms in the same run (one JVM start less): an egress LiveKit no longer
    // knows, and a recording the media-stack integration wrote no egress id for.
    Recorded gone = emptyRoomRecording("EG_alreadyGone");
    Recorded noId = emptyRoomRecording(null);

    JarRunner.Run run = JarRunner.run(env(API_SECRET), "run-once");

    assertThat(run.exit()).as(run.stdout()).isZero();
    assertThat(run.json("emptyTimeout")).isEqualTo(3);
    assertThat(run.json("recorderStopsDelivered")).isEqualTo(2);
    Map<String, Object> room = rooms.row(r.room().id);
    assertThat(room.get("status")).isEqualTo("Ended");
    assertThat(room.get("end_reason")).isEqualTo("EmptyTimeout");

    assertThat(livekit.calls("EG_blackBox1"))
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.method()).isEqualTo("POST");
              assertThat(call.path()).isEqualTo(LiveKitEgressServer.STOP_EGRESS_PATH);
              assertThat(call.header("Content-Type")).isEqualTo("application/json");
              assertThat(call.tokenVerified()).as(call.refusal()).isTrue();
              assertThat(call.claims().getIssuer()).isEqualTo(API_KEY);
              assertThat(call.roomRecordGranted()).isTrue();
              assertThat(call.status()).as(call.answer()).isEqualTo(200);
              assertThat((String) JsonPath.read(call.answer(), "$.status"))
                  .isEqualTo(LiveKitEgressServer.ENDING);
            });
    assertThat(livekit.status("EG_blackBox1")).isEqualTo(LiveKitEgressServer.ENDING);
    Map<String, Object> stop = stopRequest(r.recording());
    assertThat(stop.get("external_id")).isEqualTo("EG_blackBox1");
    assertThat(stop.get("delivered_at")).isNotNull();
    assertThat(stop.get("gave_up_at")).isNull();
    assertThat(stop.get("attempts")).isEqualTo(1);
    assertThat(stop.get("last_error")).isNull();

    // LiveKit answers not_found for an egress it no longer knows: already stopped, delivered.
    assertThat(livekit.calls("EG_alreadyGone"))
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.tokenVerified()).as(call.refusal()).isTrue();
              assertThat(call.status()).isEqualTo(404);
              assertThat((String) JsonPath.read(call.answer(), "$.code")).isEqualTo("not_found");
            });
    Map<String, Object> goneStop = stopRequest(gone.recording());
    assertThat(goneStop.get("delivered_at")).isNotNull();
    assertThat((String) goneStop.get("last_error"))
        .contains("not_found")
        .contains("already stopped");

    // Without an egress id there is nothing to stop by: given up at once, and no call made.
    assertThat(livekit.calls()).hasSize(2);
    Map<String, Object> noIdStop = stopRequest(noId.recording());
    assertThat(noIdStop.get("delivered_at")).isNull();
    assertThat(noIdStop.get("gave_up_at")).isNotNull();
    assertThat(noIdStop.get("attempts")).isEqualTo(1);
    assertThat((String) noIdStop.get("last_error")).contains("nothing to stop by");

    assertThat(run.stdout()).contains("\"message\":\"recorder stop delivered\"");
    assertThat(run.stdout()).doesNotContain(API_SECRET);
  }

  @Test
  void under_run_a_refused_secret_gives_each_stop_up_at_the_first_refusal_logged_and_counted()
      throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (ReaperWorker worker =
        ReaperWorker.start(
            "livekit-refused",
            env(WRONG_SECRET),
            ReliabilityHarness.JVM,
            List.of(
                "run",
                "--server.port=" + port,
                "--reaper.polling-interval=300ms",
                "--reaper.recorder.poll-interval=100ms",
                // A failed call would be due again 100 ms later: a retry could not hide.
                "--reaper.recorder.retry-base=100ms"))) {
      worker.awaitStarted(Duration.ofSeconds(60));

      Recorded first = emptyRoomRecording("EG_refused1");
      livekit.egress("EG_refused1", first.room().id.toString());
      Instant firstGivenUp = awaitGivenUp(worker, first.recording());
      // Ten retry bases after the give-up a retried request would long be due again; the
      // dispatcher steps that deliver the second request would claim it with the second.
      await(
          worker,
          "ten retry bases after the first give-up",
          () -> Instant.now().isAfter(firstGivenUp.plusSeconds(1)));
      Recorded second = emptyRoomRecording("EG_refused2");
      livekit.egress("EG_refused2", second.room().id.toString());
      awaitGivenUp(worker, second.recording());

      for (Recorded r : List.of(first, second)) {
        String egressId = (String) stopRequest(r.recording()).get("external_id");
        assertThat(rooms.status(r.room().id)).isEqualTo("Ended");
        assertThat(livekit.calls(egressId))
            .as("StopEgress calls for " + egressId)
            .singleElement()
            .satisfies(
                call -> {
                  assertThat(call.tokenVerified()).isFalse();
                  assertThat(call.refusal()).startsWith("invalid token");
                  assertThat(call.status()).isEqualTo(401);
                });
        assertThat(livekit.status(egressId)).isEqualTo(LiveKitEgressServer.ACTIVE);
        Map<String, Object> stop = stopRequest(r.recording());
        assertThat(stop.get("attempts")).isEqualTo(1);
        assertThat(stop.get("delivered_at")).isNull();
        assertThat((String) stop.get("last_error"))
            .startsWith("LiveKit HTTP 401")
            .contains("not retried");
      }
      assertThat(livekit.calls()).hasSize(2);

      await(worker, "the give-ups counted", () -> gaveUpCounter(port) == 2.0);
      List<String> gaveUpLines =
          worker
              .tail(Integer.MAX_VALUE)
              .lines()
              .filter(l -> l.contains("\"message\":\"recorder stop given up\""))
              .toList();
      assertThat(gaveUpLines).hasSize(2);
      assertThat(gaveUpLines)
          .allSatisfy(
              line -> {
                assertThat((String) JsonPath.read(line, "$.log.level")).isEqualTo("ERROR");
                assertThat(((Number) JsonPath.read(line, "$.attempts")).intValue()).isEqualTo(1);
                assertThat((String) JsonPath.read(line, "$.reason")).contains("not retried");
              });
      assertThat(worker.tail(Integer.MAX_VALUE)).doesNotContain(WRONG_SECRET);
    }
  }

  /** Waits until the stop request of {@code recording} is given up; returns when it was. */
  Instant awaitGivenUp(ReaperWorker worker, UUID recording) throws Exception {
    String sql = "SELECT gave_up_at FROM messenger.recorder_stop_requests WHERE recording_id = ?";
    await(
        worker,
        "the stop request of recording " + recording + " given up",
        () -> {
          List<Map<String, Object>> rows = rooms.query(sql, recording);
          return !rows.isEmpty() && rows.get(0).get("gave_up_at") != null;
        });
    return (Instant) rooms.query(sql, recording).get(0).get("gave_up_at");
  }

  static void await(ReaperWorker worker, String what, BooleanSupplier condition) throws Exception {
    Await.until(what, Duration.ofSeconds(20), condition, () -> "; worker:\n" + worker.tail(30));
  }

  /**
   * {@code messenger_conf_reaper_recorder_stop_gave_up_total} as the worker exposes it; -1: none.
   */
  static double gaveUpCounter(int port) {
    try {
      String body =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Matcher m = GAVE_UP_COUNTER.matcher(body);
      return m.find() ? Double.parseDouble(m.group(1)) : -1;
    } catch (java.io.IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
