package pin.messenger.reaper.delivery;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * {@code reaper.recorder.kind=http}, our own API: {@code POST
 * {base-url}/recordings/{recordingId}/stop} with {@code Idempotency-Key: {id}}. 2xx is delivered;
 * 404 and 409 mean the recording is already stopped (delivered too); anything else is a failed
 * call.
 */
record HttpRecorderClient(RecorderOptions options, HttpClient http, DeliveryTracing tracing)
    implements RecorderClient {

  @Override
  public CompletableFuture<SendOutcome> stop(StopRequest r) {
    String body =
        "{\"conferenceId\":\""
            + r.conferenceId()
            + "\",\"recordingId\":\""
            + r.recordingId()
            + "\",\"reason\":\""
            + r.reason().replaceAll("[^A-Za-z0-9_-]", "")
            + "\"}";
    HttpRequest request =
        HttpRequest.newBuilder(stopUri(r.recordingId()))
            .timeout(options.readTimeout())
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", r.id().toString())
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return RecorderClient.send(tracing, http, request, r, HttpRecorderClient::outcome);
  }

  static SendOutcome outcome(HttpResponse<?> response) {
    int status = response.statusCode();
    if (RecorderClient.ok(response)) {
      return SendOutcome.delivered(null);
    }
    if (status == 404 || status == 409) {
      return SendOutcome.delivered("HTTP " + status + ": treated as already stopped");
    }
    return SendOutcome.failed("HTTP " + status);
  }

  URI stopUri(UUID recordingId) {
    return RecorderClient.resolve(
        options.baseUrl(), "reaper.recorder.base-url", "recordings/" + recordingId + "/stop");
  }
}
