package pin.messenger.reaper.delivery;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The port to the media stack's recorder: asks it to stop one recording. One implementation per
 * wire format ({@code reaper.recorder.kind}): {@link HttpRecorderClient} (our own API), {@link
 * LiveKitRecorderClient} (LiveKit Egress), {@link JibriRecorderClient} (Jitsi's Jibri). A client
 * never throws: every answer and every transport error is a {@link SendOutcome}; the caller ({@link
 * RecorderCall}) bounds the wait and cancels what is still open. Every call goes out through {@link
 * DeliveryTracing#sendAsync}: an HTTP client span continuing the request's stored trace context,
 * and its W3C {@code traceparent} header on the call.
 */
interface RecorderClient {

  /** Sends the stop; completes with what the recorder answered. */
  CompletableFuture<SendOutcome> stop(StopRequest request);

  /**
   * The adapter for {@code options.kind()}; every call it makes goes through {@code tracing}'s HTTP
   * client span and carries its {@code traceparent}.
   */
  static RecorderClient of(RecorderOptions options, Clock clock, DeliveryTracing tracing) {
    HttpClient http = httpClient(options);
    return switch (options.kind()) {
      case HTTP -> new HttpRecorderClient(options, http, tracing);
      case LIVEKIT -> new LiveKitRecorderClient(options, http, clock, tracing);
      case JIBRI -> new JibriRecorderClient(options, http, tracing);
    };
  }

  /** The HTTP client every adapter uses: the connect timeout, HTTP/1.1, no redirects. */
  static HttpClient httpClient(RecorderOptions options) {
    return HttpClient.newBuilder()
        .connectTimeout(options.connectTimeout())
        // HTTP/1.1 only: the JDK client's default (HTTP/2) sends "Upgrade: h2c" with every
        // plain-http POST, which some proxies and servers reject or mishandle.
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  /**
   * Sends {@code request} for {@code stop} through {@code tracing}'s client span: a transport error
   * is a failed outcome ({@link #transportError}), an answer is what {@code outcome} reads in it.
   */
  static <T> CompletableFuture<SendOutcome> send(
      DeliveryTracing tracing,
      HttpClient http,
      HttpRequest request,
      StopRequest stop,
      HttpResponse.BodyHandler<T> body,
      Function<HttpResponse<T>, SendOutcome> outcome) {
    return tracing
        .sendAsync(http, request, stop, body)
        .handle(
            (response, error) -> error != null ? transportError(error) : outcome.apply(response));
  }

  /** {@link #send} of a call whose answer's body is not read. */
  static CompletableFuture<SendOutcome> send(
      DeliveryTracing tracing,
      HttpClient http,
      HttpRequest request,
      StopRequest stop,
      Function<HttpResponse<Void>, SendOutcome> outcome) {
    return send(tracing, http, request, stop, HttpResponse.BodyHandlers.discarding(), outcome);
  }

  /** A transport error (no answer) as a failed outcome: retried with backoff. */
  static SendOutcome transportError(Throwable error) {
    Throwable cause = error.getCause() != null ? error.getCause() : error;
    return SendOutcome.failed(SendOutcome.describe(cause));
  }

  /** {@code base} joined with {@code path} (which has no leading slash). */
  static URI resolve(@Nullable URI base, String property, String path) {
    if (base == null) {
      // RecorderOptions rejects the kind without its URL; reaching this is a bug.
      throw new IllegalStateException(property + " is not set");
    }
    String b = base.toString();
    return URI.create((b.endsWith("/") ? b : b + "/") + path);
  }

  /** Whether a response is 2xx. */
  static boolean ok(HttpResponse<?> response) {
    return response.statusCode() >= 200 && response.statusCode() < 300;
  }
}
