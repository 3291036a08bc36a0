package pin.messenger.reaper.delivery;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * {@code reaper.recorder.kind=livekit}, LiveKit's Egress service over Twirp: {@code POST
 * {livekit.url}/twirp/livekit.Egress/StopEgress} with {@code {"egress_id": …}} (the recording's
 * {@code external_id}) and a short-lived access token (HS256 with the API secret, {@code iss} = API
 * key, grant {@code video.roomRecord}).
 *
 * <p>The outcome is read from the Twirp error code in the body, not only the status: {@code
 * not_found} and {@code failed_precondition} (egress already complete) are delivered, already
 * stopped; {@code unauthenticated}, {@code permission_denied} and {@code invalid_argument} are a
 * configuration error that no retry changes, so the request is given up at once; everything else
 * ({@code unavailable}, {@code deadline_exceeded}, {@code internal}, 5xx, an unreadable body) is a
 * failed call, retried with backoff. A request without an egress id is given up: nothing to stop
 * by.
 */
final class LiveKitRecorderClient implements RecorderClient {
  static final String STOP_PATH = "twirp/livekit.Egress/StopEgress";

  /** Lifetime of one access token: long enough for one call, short if it leaks. */
  static final Duration TOKEN_TTL = Duration.ofMinutes(5);

  private static final Set<String> ALREADY_STOPPED = Set.of("not_found", "failed_precondition");
  private static final Set<String> REFUSED =
      Set.of("unauthenticated", "permission_denied", "invalid_argument");

  private final RecorderOptions options;
  private final HttpClient http;
  private final DeliveryTracing tracing;
  private final Clock clock;
  private final MACSigner signer;

  LiveKitRecorderClient(
      RecorderOptions options, HttpClient http, Clock clock, DeliveryTracing tracing) {
    this.options = options;
    this.http = http;
    this.clock = clock;
    this.tracing = tracing;
    try {
      // RecorderOptions checked the secret is set and long enough for HS256.
      this.signer =
          new MACSigner(
              Objects.requireNonNull(
                      options.livekit().apiSecret(), "reaper.recorder.livekit.api-secret")
                  .getBytes(StandardCharsets.UTF_8));
    } catch (JOSEException e) {
      throw new IllegalArgumentException(
          "reaper.recorder.livekit.api-secret: " + e.getMessage(), e);
    }
  }

  @Override
  public CompletableFuture<SendOutcome> stop(StopRequest r) {
    String egressId = r.externalId();
    if (egressId == null || egressId.isBlank()) {
      return CompletableFuture.completedFuture(
          SendOutcome.giveUp(
              "no external_id (LiveKit egress id) on the recording: nothing to stop by"));
    }
    HttpRequest request;
    try {
      request =
          HttpRequest.newBuilder(stopUri())
              .timeout(options.readTimeout())
              .header("Content-Type", "application/json")
              .header("Authorization", "Bearer " + token(clock.instant()))
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      JSONObjectUtils.toJSONString(Map.of("egress_id", egressId))))
              .build();
    } catch (JOSEException e) {
      return CompletableFuture.completedFuture(
          SendOutcome.giveUp("cannot sign the LiveKit token: " + SendOutcome.describe(e)));
    }
    return RecorderClient.send(
        tracing,
        http,
        request,
        r,
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8),
        LiveKitRecorderClient::outcome);
  }

  static SendOutcome outcome(HttpResponse<String> response) {
    int status = response.statusCode();
    if (RecorderClient.ok(response)) {
      return SendOutcome.delivered(null);
    }
    TwirpError e = TwirpError.parse(response.body());
    String what =
        "LiveKit HTTP "
            + status
            + (e == null ? "" : " " + e.code() + (e.msg() == null ? "" : ": " + e.msg()));
    String code = e == null ? null : e.code();
    if (code != null && ALREADY_STOPPED.contains(code)) {
      return SendOutcome.delivered(what + " (treated as already stopped)");
    }
    if ((code != null && REFUSED.contains(code))
        || (code == null && (status == 401 || status == 403))) {
      return SendOutcome.giveUp(
          what + " (our credentials or request are refused: a configuration error, not retried)");
    }
    return SendOutcome.failed(what);
  }

  /** A fresh access token for {@code now}. */
  String token(Instant now) throws JOSEException {
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(options.livekit().apiKey())
            .subject("conference-room-reaper")
            .notBeforeTime(Date.from(now))
            .expirationTime(Date.from(now.plus(TOKEN_TTL)))
            .claim("video", Map.of("roomRecord", true))
            .build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
    jwt.sign(signer);
    return jwt.serialize();
  }

  URI stopUri() {
    return RecorderClient.resolve(
        options.livekit().url(), "reaper.recorder.livekit.url", STOP_PATH);
  }

  /** Twirp's error body, {@code {"code": …, "msg": …}}. */
  record TwirpError(String code, @Nullable String msg) {
    static @Nullable TwirpError parse(@Nullable String body) {
      if (body == null || body.isBlank()) {
        return null;
      }
      try {
        Map<String, Object> json = JSONObjectUtils.parse(body);
        if (!(json.get("code") instanceof String code)) {
          return null;
        }
        String msg = json.get("msg") instanceof String m ? bounded(m) : null;
        return new TwirpError(code, msg);
      } catch (ParseException e) {
        return null;
      }
    }

    private static String bounded(String s) {
      return s.length() > 500 ? s.substring(0, 500) : s;
    }
  }
}
