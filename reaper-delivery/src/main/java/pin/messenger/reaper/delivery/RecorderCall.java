package pin.messenger.reaper.delivery;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The dispatcher's send: {@code POST {base-url}/recordings/{recordingId}/stop} with {@code
 * Idempotency-Key: {id}} for every request of a batch at once. 2xx is delivered; 404 and 409 mean
 * the recording is already stopped (delivered too); anything else is a failed call. Each call has
 * the connect and read timeouts, and the batch is awaited for at most connect-timeout +
 * read-timeout (or until the step's deadline, if sooner): a call still open then is cancelled and
 * failed. HTTP/1.1 only, never an {@code Upgrade: h2c}.
 */
final class RecorderCall implements LeasedDelivery.Sender<StopRequest> {
  private final RecorderOptions options;
  private final HttpClient http;

  RecorderCall(RecorderOptions options) {
    this.options = options;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(options.connectTimeout())
            // HTTP/1.1 only: the JDK client's default (HTTP/2) sends "Upgrade: h2c" with every
            // plain-http POST, which some proxies and servers reject or mishandle.
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public List<SendOutcome> send(List<StopRequest> requests, long stepDeadlineNanos) {
    long deadline =
        LeasedDelivery.earlier(
            System.nanoTime() + options.callBound().toNanos(), stepDeadlineNanos);
    List<CompletableFuture<SendOutcome>> calls = new ArrayList<>(requests.size());
    for (StopRequest r : requests) {
      calls.add(call(r));
    }
    List<SendOutcome> outcomes = new ArrayList<>(requests.size());
    for (CompletableFuture<SendOutcome> call : calls) {
      outcomes.add(await(call, deadline));
    }
    return outcomes;
  }

  private SendOutcome await(CompletableFuture<SendOutcome> call, long deadline) {
    try {
      return call.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      return SendOutcome.failed(
          "TimeoutException: no response within " + options.callBound().toMillis() + " ms");
    } catch (ExecutionException e) {
      return SendOutcome.failed(SendOutcome.describe(e.getCause() == null ? e : e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel(true);
      return SendOutcome.failed("interrupted while waiting for the media stack");
    }
  }

  private CompletableFuture<SendOutcome> call(StopRequest r) {
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
    return http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .handle(
            (response, error) -> {
              if (error != null) {
                Throwable cause = error.getCause() != null ? error.getCause() : error;
                return SendOutcome.failed(
                    cause.getClass().getSimpleName() + ": " + cause.getMessage());
              }
              int status = response.statusCode();
              if (status >= 200 && status < 300) {
                return SendOutcome.delivered(null);
              }
              if (status == 404 || status == 409) {
                return SendOutcome.delivered("HTTP " + status + ": treated as already stopped");
              }
              return SendOutcome.failed("HTTP " + status);
            });
  }

  URI stopUri(UUID recordingId) {
    // The dispatcher only runs with a base URL (reaper.recorder.base-url set); see
    // DeliveryConfiguration.
    String base = Objects.requireNonNull(options.baseUrl(), "reaper.recorder.base-url").toString();
    return URI.create(
        (base.endsWith("/") ? base : base + "/") + "recordings/" + recordingId + "/stop");
  }
}
