package pin.messenger.reaper.delivery;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

/**
 * {@code reaper.recorder.kind=jibri}, Jitsi's Jibri HTTP API: {@code POST
 * {jibri.url}/jibri/api/v1.0/stopService}. Jibri runs one recording at a time and answers 200 even
 * when idle, so a repeated stop is harmless: 2xx is delivered, anything else a failed call (retried
 * with backoff).
 */
record JibriRecorderClient(RecorderOptions options, HttpClient http, DeliveryTracing tracing)
    implements RecorderClient {
  static final String STOP_PATH = "jibri/api/v1.0/stopService";

  @Override
  public CompletableFuture<SendOutcome> stop(StopRequest r) {
    HttpRequest request =
        HttpRequest.newBuilder(stopUri())
            .timeout(options.readTimeout())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    return RecorderClient.send(tracing, http, request, r, JibriRecorderClient::outcome);
  }

  static SendOutcome outcome(HttpResponse<?> response) {
    return RecorderClient.ok(response)
        ? SendOutcome.delivered(null)
        : SendOutcome.failed("Jibri HTTP " + response.statusCode());
  }

  URI stopUri() {
    return RecorderClient.resolve(options.jibri().url(), "reaper.recorder.jibri.url", STOP_PATH);
  }
}
