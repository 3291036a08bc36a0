package pin.messenger.reaper.delivery;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers {@code messenger.recorder_stop_requests} to the media stack after commit: {@code POST
 * {base-url}/recordings/{recordingId}/stop} with {@code Idempotency-Key: {id}}. 2xx is delivered;
 * 404 and 409 mean the recording is already stopped (delivered too); anything else is retried with
 * backoff up to max-attempts, then given up (recording-finalize-retry is the safety net). Calls run
 * outside every transaction: rows are leased by a short claim statement, then called, then marked.
 */
public final class RecorderStopDispatcher implements DeliveryLoop.Step {
  private static final Logger log = LoggerFactory.getLogger(RecorderStopDispatcher.class);

  static final String CLAIM =
      """
      WITH due AS (
        SELECT id FROM messenger.recorder_stop_requests
         WHERE delivered_at IS NULL AND gave_up_at IS NULL
           AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
           AND (locked_until IS NULL OR locked_until < ?)
         ORDER BY created_at
         LIMIT ?
           FOR UPDATE SKIP LOCKED
      )
      UPDATE messenger.recorder_stop_requests r
         SET locked_until = ?, locked_by = ?
        FROM due
       WHERE r.id = due.id
      RETURNING r.id, r.recording_id, r.conference_id, r.reason, r.attempts
      """;

  static final String MARK_DELIVERED =
      """
      UPDATE messenger.recorder_stop_requests
         SET delivered_at = ?, attempts = attempts + 1, last_error = ?, locked_until = NULL, locked_by = NULL
       WHERE id = ? AND locked_by = ?
      """;

  static final String MARK_FAILED =
      """
      UPDATE messenger.recorder_stop_requests
         SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, locked_until = NULL, locked_by = NULL,
             gave_up_at = CASE WHEN attempts + 1 >= ? THEN ?::timestamptz END
       WHERE id = ? AND locked_by = ?
      RETURNING gave_up_at IS NOT NULL
      """;

  /** What one step did. */
  public record StepResult(int claimed, int delivered, int failed, int gaveUp) {}

  private final DataSource dataSource;
  private final HttpClient http;
  private final RecorderOptions options;
  private final DeliveryObserver observer;
  private final Backoff backoff;
  private final String dispatcherId = "recorder-" + UUID.randomUUID();

  public RecorderStopDispatcher(
      DataSource dataSource, RecorderOptions options, DeliveryObserver observer) {
    if (!options.enabled()) {
      throw new IllegalArgumentException("reaper.recorder.base-url is not set");
    }
    this.dataSource = dataSource;
    this.options = options;
    this.observer = observer == null ? DeliveryObserver.NONE : observer;
    this.backoff = new Backoff(options.retryBase(), options.retryCap());
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(options.connectTimeout())
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public DeliveryLoop.Outcome run(Instant now) throws SQLException {
    StepResult r = dispatchOnce(now);
    // A failed call is retried by the row's own backoff, so the loop itself never needs to back
    // off.
    return r.claimed() >= options.batchSize()
        ? DeliveryLoop.Outcome.MORE
        : DeliveryLoop.Outcome.IDLE;
  }

  /** Claims a batch, calls the recorder for each request concurrently, marks the outcomes. */
  public StepResult dispatchOnce(Instant now) throws SQLException {
    List<Request> requests = claim(now);
    List<CompletableFuture<Outcome>> calls = new ArrayList<>(requests.size());
    for (Request r : requests) {
      calls.add(call(r));
    }
    int delivered = 0;
    int failed = 0;
    int gaveUp = 0;
    for (int i = 0; i < requests.size(); i++) {
      Request r = requests.get(i);
      Outcome o = calls.get(i).join();
      if (o.delivered) {
        markDelivered(r, now, o.note);
        delivered++;
      } else {
        failed++;
        if (markFailed(r, now, o.note)) {
          gaveUp++;
        }
      }
    }
    observer.recorderDispatched(delivered, failed, gaveUp);
    return new StepResult(requests.size(), delivered, failed, gaveUp);
  }

  private CompletableFuture<Outcome> call(Request r) {
    String body =
        "{\"conferenceId\":\""
            + r.conferenceId
            + "\",\"recordingId\":\""
            + r.recordingId
            + "\",\"reason\":\""
            + r.reason.replaceAll("[^A-Za-z0-9_-]", "")
            + "\"}";
    HttpRequest request =
        HttpRequest.newBuilder(stopUri(r.recordingId))
            .timeout(options.readTimeout())
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", r.id.toString())
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .handle(
            (response, error) -> {
              if (error != null) {
                Throwable cause = error.getCause() != null ? error.getCause() : error;
                return new Outcome(
                    false, cause.getClass().getSimpleName() + ": " + cause.getMessage());
              }
              int status = response.statusCode();
              if (status >= 200 && status < 300) {
                return new Outcome(true, null);
              }
              if (status == 404 || status == 409) {
                return new Outcome(true, "HTTP " + status + ": treated as already stopped");
              }
              return new Outcome(false, "HTTP " + status);
            });
  }

  URI stopUri(UUID recordingId) {
    String base = options.baseUrl().toString();
    return URI.create(
        (base.endsWith("/") ? base : base + "/") + "recordings/" + recordingId + "/stop");
  }

  private List<Request> claim(Instant now) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(CLAIM)) {
      ps.setObject(1, ts(now));
      ps.setObject(2, ts(now));
      ps.setInt(3, options.batchSize());
      ps.setObject(4, ts(now.plus(options.lease())));
      ps.setString(5, dispatcherId);
      List<Request> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new Request(
                  rs.getObject("id", UUID.class),
                  rs.getObject("recording_id", UUID.class),
                  rs.getObject("conference_id", UUID.class),
                  rs.getString("reason"),
                  rs.getInt("attempts")));
        }
      }
      return out;
    }
  }

  private void markDelivered(Request r, Instant now, String note) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(MARK_DELIVERED)) {
      ps.setObject(1, ts(now));
      ps.setString(2, note);
      ps.setObject(3, r.id);
      ps.setString(4, dispatcherId);
      ps.executeUpdate();
    }
    log.atInfo()
        .addKeyValue("requestId", r.id)
        .addKeyValue("recordingId", r.recordingId)
        .addKeyValue("conferenceId", r.conferenceId)
        .addKeyValue("note", note)
        .log("recorder stop delivered");
  }

  private boolean markFailed(Request r, Instant now, String error) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(MARK_FAILED)) {
      ps.setString(1, error);
      ps.setObject(2, ts(now.plus(backoff.after(r.attempts + 1))));
      ps.setInt(3, options.maxAttempts());
      ps.setObject(4, ts(now));
      ps.setObject(5, r.id);
      ps.setString(6, dispatcherId);
      try (ResultSet rs = ps.executeQuery()) {
        boolean gaveUp = rs.next() && rs.getBoolean(1);
        (gaveUp ? log.atError() : log.atWarn())
            .addKeyValue("requestId", r.id)
            .addKeyValue("recordingId", r.recordingId)
            .addKeyValue("attempts", r.attempts + 1)
            .addKeyValue("reason", error)
            .log(gaveUp ? "recorder stop given up" : "recorder stop failed; will retry");
        return gaveUp;
      }
    }
  }

  private static OffsetDateTime ts(Instant i) {
    return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }

  private record Request(
      UUID id, UUID recordingId, UUID conferenceId, String reason, int attempts) {}

  private record Outcome(boolean delivered, String note) {}
}
