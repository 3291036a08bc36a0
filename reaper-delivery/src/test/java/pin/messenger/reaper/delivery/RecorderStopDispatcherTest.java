package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.jayway.jsonpath.JsonPath;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.FakeMediaStack;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/** Recorder stop delivery against a real local HTTP server and a real PostgreSQL. */
class RecorderStopDispatcherTest extends DatabaseTest {
  FakeMediaStack media;
  final Instant asOf = Instant.parse("2026-12-02T10:00:00Z");

  @BeforeEach
  void setUp() throws Exception {
    media = new FakeMediaStack();
  }

  @AfterEach
  void tearDown() {
    media.close();
  }

  RecorderStopDispatcher dispatcher(int maxAttempts) {
    RecorderOptions d = RecorderOptions.defaults(media.baseUrl());
    return new RecorderStopDispatcher(
        db.dataSource(),
        new RecorderOptions(
            d.baseUrl(),
            d.connectTimeout(),
            Duration.ofMillis(500),
            d.batchSize(),
            d.pollInterval(),
            d.lease(),
            maxAttempts,
            d.retryBase(),
            d.retryCap(),
            RecorderOptions.Kind.HTTP,
            RecorderOptions.LiveKit.NONE,
            RecorderOptions.Jibri.NONE),
        DeliveryObserver.NONE);
  }

  /**
   * A room with a live recording, closed by a real reaper cycle: the stop request the reaper wrote.
   */
  UUID[] reapedRecording() {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    UUID recording = rooms.recording(room.id, "Recording", room.startedAt);
    new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            ConferenceRoomReaperOptions.defaults(),
            ReaperObserver.NONE,
            List.of())
        .runOnce(asOf, Cancellation.NONE);
    UUID request =
        (UUID) rooms.query("SELECT id FROM messenger.recorder_stop_requests").get(0).get("id");
    return new UUID[] {room.id, recording, request};
  }

  Map<String, Object> request(UUID id) {
    return rooms.query("SELECT * FROM messenger.recorder_stop_requests WHERE id = ?", id).get(0);
  }

  @Test
  void stop_is_posted_once_per_request_with_its_idempotency_key_and_marked_delivered()
      throws Exception {
    UUID[] ids = reapedRecording();

    RecorderStopDispatcher.StepResult first = dispatcher(10).dispatchOnce(asOf);
    RecorderStopDispatcher.StepResult second = dispatcher(10).dispatchOnce(asOf.plusSeconds(1));

    assertThat(first.delivered()).isEqualTo(1);
    assertThat(second.claimed()).isZero();
    assertThat(media.calls())
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.method()).isEqualTo("POST");
              assertThat(call.path()).isEqualTo("/media/v1/recordings/" + ids[1] + "/stop");
              assertThat(call.idempotencyKey()).isEqualTo(ids[2].toString());
              assertThat(call.contentType()).isEqualTo("application/json");
              // HTTP/1.1 only: no "Upgrade: h2c" (nor its HTTP2-Settings) with the POST.
              assertThat(call.headers()).doesNotContainKeys("Upgrade", "Http2-settings");
              assertThat((String) JsonPath.read(call.body(), "$.conferenceId"))
                  .isEqualTo(ids[0].toString());
              assertThat((String) JsonPath.read(call.body(), "$.recordingId"))
                  .isEqualTo(ids[1].toString());
              assertThat((String) JsonPath.read(call.body(), "$.reason")).isEqualTo("EmptyTimeout");
            });
    Map<String, Object> row = request(ids[2]);
    // The answer's time (the dispatcher's clock), not the step's asOf.
    assertThat(row.get("delivered_at")).isNotEqualTo(asOf);
    assertThat(row.get("attempts")).isEqualTo(1);
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void delivered_at_is_when_the_recorder_answered_not_when_the_step_began() throws Exception {
    UUID[] ids = reapedRecording();
    media.hang();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Instant stepStarted = Instant.now();
      Future<RecorderStopDispatcher.StepResult> step =
          pool.submit(
              () ->
                  new RecorderStopDispatcher(db.dataSource(), shortLease(), DeliveryObserver.NONE)
                      .dispatchOnce(stepStarted));
      assertThat(media.awaitCalls(1, Duration.ofSeconds(20))).isTrue();
      Instant answered = Instant.now();
      media.release();
      assertThat(step.get(30, TimeUnit.SECONDS).delivered()).isEqualTo(1);
      Instant settled = Instant.now();
      assertThat((Instant) request(ids[2]).get("delivered_at"))
          .isAfterOrEqualTo(answered.truncatedTo(java.time.temporal.ChronoUnit.MICROS))
          .isBeforeOrEqualTo(settled);
    } finally {
      media.release();
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {404, 409})
  void not_found_or_conflict_means_already_stopped_and_counts_as_delivered(int status)
      throws Exception {
    UUID[] ids = reapedRecording();
    media.respond(status);

    assertThat(dispatcher(10).dispatchOnce(asOf).delivered()).isEqualTo(1);

    assertThat(request(ids[2]).get("delivered_at")).isNotNull();
    assertThat((String) request(ids[2]).get("last_error"))
        .contains(String.valueOf(status))
        .contains("already stopped");
  }

  @Test
  void media_stack_down_then_up_delivers_after_retries_with_backoff() throws Exception {
    UUID[] ids = reapedRecording();
    media.stop();
    RecorderStopDispatcher dispatcher = dispatcher(10);

    RecorderStopDispatcher.StepResult down = dispatcher.dispatchOnce(asOf);
    assertThat(down.failed()).isEqualTo(1);
    Map<String, Object> afterFailure = request(ids[2]);
    assertThat(afterFailure.get("delivered_at")).isNull();
    assertThat(afterFailure.get("attempts")).isEqualTo(1);
    assertThat((String) afterFailure.get("last_error")).isNotBlank();
    assertThat(afterFailure.get("next_attempt_at")).isEqualTo(asOf.plusSeconds(1));
    // In backoff: not called again before next_attempt_at.
    assertThat(dispatcher.dispatchOnce(asOf.plusMillis(500)).claimed()).isZero();

    RecorderStopDispatcher.StepResult stillDown = dispatcher.dispatchOnce(asOf.plusSeconds(1));
    assertThat(stillDown.failed()).isEqualTo(1);
    assertThat(request(ids[2]).get("next_attempt_at"))
        .isEqualTo(asOf.plusSeconds(1).plusSeconds(2));

    media.restart();
    RecorderStopDispatcher.StepResult up = dispatcher.dispatchOnce(asOf.plusSeconds(3));
    assertThat(up.delivered()).isEqualTo(1);
    assertThat(request(ids[2]).get("attempts")).isEqualTo(3);
    assertThat(media.calls()).hasSize(1);
  }

  @Test
  void server_errors_are_retried_up_to_max_attempts_then_given_up() throws Exception {
    UUID[] ids = reapedRecording();
    media.respond(503);
    RecorderStopDispatcher dispatcher = dispatcher(3);

    Instant t = asOf;
    int gaveUp = 0;
    for (int i = 0; i < 3; i++) {
      gaveUp += dispatcher.dispatchOnce(t).gaveUp();
      t = t.plus(Duration.ofMinutes(10));
    }

    assertThat(gaveUp).isEqualTo(1);
    assertThat(media.calls()).hasSize(3);
    Map<String, Object> row = request(ids[2]);
    assertThat(row.get("gave_up_at")).isNotNull();
    assertThat(row.get("delivered_at")).isNull();
    assertThat((String) row.get("last_error")).isEqualTo("HTTP 503");
    assertThat(dispatcher.dispatchOnce(t).claimed()).isZero();
  }

  @Test
  void a_hanging_media_stack_times_out_and_never_blocks_the_reaper_cycle() throws Exception {
    reapedRecording();
    media.hang();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<RecorderStopDispatcher.StepResult> stuck =
          pool.submit(() -> dispatcher(10).dispatchOnce(asOf));
      assertThat(media.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
      // While the call hangs, the reaper closes another room with a recording: no lock is shared
      // with delivery.
      Room other = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(200)));
      rooms.recording(other.id, "Uploading", other.startedAt);
      CycleResult cycle =
          new ConferenceRoomReaper(
                  new PostgresReaperStore(db.dataSource()),
                  ConferenceRoomReaperOptions.defaults(),
                  ReaperObserver.NONE,
                  List.of())
              .runOnce(asOf.plusSeconds(30), Cancellation.NONE);
      assertThat(cycle.emptyTimeout()).isEqualTo(1);

      RecorderStopDispatcher.StepResult timedOut = stuck.get(10, TimeUnit.SECONDS);
      assertThat(timedOut.failed()).isEqualTo(1);
      assertThat(
              rooms
                  .query(
                      "SELECT last_error FROM messenger.recorder_stop_requests WHERE attempts = 1")
                  .get(0)
                  .get("last_error")
                  .toString())
          .contains("Timeout");
    } finally {
      media.release();
      pool.shutdownNow();
    }
  }

  /** Options whose 10s lease derives a 1s statement timeout. */
  RecorderOptions shortLease() {
    RecorderOptions d = RecorderOptions.defaults(media.baseUrl());
    return new RecorderOptions(
        d.baseUrl(),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        d.batchSize(),
        d.pollInterval(),
        Duration.ofSeconds(10),
        10,
        d.retryBase(),
        d.retryCap(),
        RecorderOptions.Kind.HTTP,
        RecorderOptions.LiveKit.NONE,
        RecorderOptions.Jibri.NONE);
  }

  @Test
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void a_call_that_outlived_its_lease_is_counted_as_lease_lost_and_not_marked_delivered()
      throws Exception {
    UUID[] ids = reapedRecording();
    LostLeases observer = new LostLeases();
    RecorderStopDispatcher dispatcherA =
        new RecorderStopDispatcher(db.dataSource(), shortLease(), observer);
    LeasedRows<StopRequest> dispatcherB =
        new DeliveryStore(db.dataSource(), Duration.ofSeconds(5)).stopRequests("recorder-B");
    media.hang();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<RecorderStopDispatcher.StepResult> a =
          pool.submit(() -> dispatcherA.dispatchOnce(asOf));
      assertThat(media.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
      // A's lease runs out while its call is open; B claims the request with the real claim.
      rooms.exec(
          "UPDATE messenger.recorder_stop_requests SET locked_until = ? WHERE id = ?",
          Rooms.ts(asOf.minusSeconds(1)),
          ids[2]);
      assertThat(dispatcherB.claim(asOf, 10, Duration.ofSeconds(60)))
          .extracting(StopRequest::id)
          .containsExactly(ids[2]);
      media.release();

      RecorderStopDispatcher.StepResult step = a.get(10, TimeUnit.SECONDS);
      assertThat(step.claimed()).isEqualTo(1);
      assertThat(step.delivered()).isZero();
      assertThat(step.leaseLost()).isEqualTo(1);
      assertThat(observer.rows).containsExactly(Map.entry("recorder", 1));
    } finally {
      media.release();
      pool.shutdownNow();
    }
    Map<String, Object> row = request(ids[2]);
    assertThat(row.get("delivered_at")).isNull();
    assertThat(row.get("attempts")).isEqualTo(0);
    assertThat(row.get("locked_by")).isEqualTo("recorder-B");
  }

  @Test
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void a_locked_table_fails_the_claim_within_the_statement_timeout_and_calls_nobody()
      throws Exception {
    reapedRecording();
    RecorderOptions options = shortLease();
    try (Connection holder = db.newConnection()) {
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.execute("LOCK TABLE messenger.recorder_stop_requests IN ACCESS EXCLUSIVE MODE");
      }
      long start = System.nanoTime();
      assertThatThrownBy(
              () ->
                  new RecorderStopDispatcher(db.dataSource(), options, DeliveryObserver.NONE)
                      .dispatchOnce(asOf))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("57014"));
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(options.statementTimeout())
          .isLessThan(options.statementTimeout().multipliedBy(5));
      holder.rollback();
    }
    assertThat(media.calls()).isEmpty();
  }
}
