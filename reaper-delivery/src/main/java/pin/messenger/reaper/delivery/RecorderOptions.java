package pin.messenger.reaper.delivery;

import static pin.messenger.reaper.core.OptionChecks.capNotBelowBase;
import static pin.messenger.reaper.core.OptionChecks.isPositive;
import static pin.messenger.reaper.core.OptionChecks.positive;
import static pin.messenger.reaper.core.OptionChecks.throwIfAny;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Options of the recorder-stop dispatcher ({@code reaper.recorder.*}).
 *
 * @param baseUrl the media stack's recorder API; null → dispatch is off and requests are kept
 * @param connectTimeout TCP connect timeout of one call
 * @param readTimeout time to the response of one call; the calls of a step run concurrently and are
 *     awaited for at most connect-timeout + read-timeout, which with the step's statements must fit
 *     in the lease
 * @param batchSize requests claimed per step
 * @param pollInterval wait between steps when there is nothing to send
 * @param lease how long a claim is this dispatcher's
 * @param maxAttempts failed calls after which a request is given up (recording-finalize-retry takes
 *     over)
 * @param retryBase first wait after a failed call, doubling per failure
 * @param retryCap longest wait between two calls for one request
 * @param kind the recorder's wire format ({@code reaper.recorder.kind}): {@code http} (our own API
 *     at base-url; the default), {@code livekit} (LiveKit Egress) or {@code jibri} (Jitsi's Jibri)
 * @param livekit where kind {@code livekit} sends stops ({@code reaper.recorder.livekit.*})
 * @param jibri where kind {@code jibri} sends stops ({@code reaper.recorder.jibri.*})
 */
public record RecorderOptions(
    @Nullable URI baseUrl,
    Duration connectTimeout,
    Duration readTimeout,
    int batchSize,
    Duration pollInterval,
    Duration lease,
    int maxAttempts,
    Duration retryBase,
    Duration retryCap,
    Kind kind,
    LiveKit livekit,
    Jibri jibri)
    implements LeaseOptions {

  /** The recorder's wire format; one {@link RecorderClient} each. */
  public enum Kind {
    /** {@code POST {base-url}/recordings/{id}/stop}, our own API. */
    HTTP,
    /** LiveKit Egress: {@code POST {livekit.url}/twirp/livekit.Egress/StopEgress}. */
    LIVEKIT,
    /** Jitsi's Jibri: {@code POST {jibri.url}/jibri/api/v1.0/stopService}. */
    JIBRI
  }

  /**
   * LiveKit Egress ({@code reaper.recorder.livekit.*}, kind {@code livekit}); no defaults.
   *
   * @param url LiveKit's server URL, e.g. {@code https://livekit.example.org}
   * @param apiKey LiveKit API key: the token's issuer
   * @param apiSecret LiveKit API secret: signs the token (HS256, ≥ 32 bytes); never printed
   */
  public record LiveKit(@Nullable URI url, @Nullable String apiKey, @Nullable String apiSecret) {
    /** Nothing set: the settings of a recorder of another kind. */
    public static final LiveKit NONE = new LiveKit(null, null, null);

    @Override
    public String toString() {
      return "LiveKit[url=" + url + ", apiKey=" + apiKey + ", apiSecret=" + masked(apiSecret) + "]";
    }
  }

  /**
   * Jitsi's Jibri ({@code reaper.recorder.jibri.*}, kind {@code jibri}); no defaults.
   *
   * @param url Jibri's HTTP API, e.g. {@code http://jibri:2222}
   */
  public record Jibri(@Nullable URI url) {
    /** Nothing set: the settings of a recorder of another kind. */
    public static final Jibri NONE = new Jibri(null);
  }

  /** HS256 needs a key of at least 256 bits. */
  static final int MIN_SECRET_BYTES = 32;

  public RecorderOptions {
    List<String> errors = new ArrayList<>();
    httpUrl(errors, "reaper.recorder.base-url", baseUrl);
    httpUrl(errors, "reaper.recorder.livekit.url", livekit.url());
    httpUrl(errors, "reaper.recorder.jibri.url", jibri.url());
    String liveKitApiSecret = livekit.apiSecret();
    if (kind == null) {
      errors.add("reaper.recorder.kind must be one of http, livekit, jibri but was not set");
    } else if (kind == Kind.LIVEKIT) {
      required(errors, "livekit", "reaper.recorder.livekit.url", livekit.url());
      required(errors, "livekit", "reaper.recorder.livekit.api-key", livekit.apiKey());
      required(errors, "livekit", "reaper.recorder.livekit.api-secret", liveKitApiSecret);
      if (liveKitApiSecret != null
          && !liveKitApiSecret.isBlank()
          && liveKitApiSecret.getBytes(StandardCharsets.UTF_8).length < MIN_SECRET_BYTES) {
        errors.add(
            "reaper.recorder.livekit.api-secret must be at least "
                + MIN_SECRET_BYTES
                + " bytes (HS256) but was "
                + liveKitApiSecret.getBytes(StandardCharsets.UTF_8).length);
      }
    } else if (kind == Kind.JIBRI) {
      required(errors, "jibri", "reaper.recorder.jibri.url", jibri.url());
    }
    positive(errors, "reaper.recorder.connect-timeout", connectTimeout);
    positive(errors, "reaper.recorder.read-timeout", readTimeout);
    positive(errors, "reaper.recorder.poll-interval", pollInterval);
    positive(errors, "reaper.recorder.lease", lease);
    positive(errors, "reaper.recorder.retry-base", retryBase);
    positive(errors, "reaper.recorder.retry-cap", retryCap);
    if (batchSize < 1 || batchSize > 1000) {
      errors.add("reaper.recorder.batch-size must be between 1 and 1000 but was " + batchSize);
    }
    if (maxAttempts < 1) {
      errors.add("reaper.recorder.max-attempts must be at least 1 but was " + maxAttempts);
    }
    capNotBelowBase(
        errors, "reaper.recorder.retry-cap", retryCap, "reaper.recorder.retry-base", retryBase);
    if (isPositive(lease) && isPositive(connectTimeout) && isPositive(readTimeout)) {
      // The calls of a batch run concurrently and are awaited against one deadline of
      // connect-timeout + read-timeout, so that is the send's bound whatever the batch size.
      LeaseBudget.requireLeaseCoversStep(
          errors,
          "reaper.recorder.lease",
          lease,
          connectTimeout.plus(readTimeout),
          "reaper.recorder.connect-timeout ("
              + connectTimeout
              + ") + reaper.recorder.read-timeout ("
              + readTimeout
              + ")");
    }
    throwIfAny(errors);
  }

  public static RecorderOptions defaults(@Nullable URI baseUrl) {
    return new RecorderOptions(
        baseUrl,
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        50,
        Duration.ofSeconds(1),
        Duration.ofMinutes(1),
        10,
        Duration.ofSeconds(1),
        Duration.ofMinutes(5),
        Kind.HTTP,
        LiveKit.NONE,
        Jibri.NONE);
  }

  /**
   * Whether the dispatcher runs: kind {@code http} with a base URL, or kind {@code livekit} or
   * {@code jibri} (whose URL is required).
   */
  public boolean enabled() {
    return kind != Kind.HTTP || baseUrl != null;
  }

  /** Where stops go, for the start-up line. */
  public @Nullable URI endpoint() {
    return switch (kind) {
      case HTTP -> baseUrl;
      case LIVEKIT -> livekit.url();
      case JIBRI -> jibri.url();
    };
  }

  /** One flat line for the start-up log, as the properties are set, with the API secret masked. */
  @Override
  public String toString() {
    return String.format(
        "RecorderOptions[baseUrl=%s, connectTimeout=%s, readTimeout=%s, batchSize=%d,"
            + " pollInterval=%s, lease=%s, maxAttempts=%d, retryBase=%s, retryCap=%s, kind=%s,"
            + " liveKitUrl=%s, liveKitApiKey=%s, liveKitApiSecret=%s, jibriUrl=%s]",
        baseUrl,
        connectTimeout,
        readTimeout,
        batchSize,
        pollInterval,
        lease,
        maxAttempts,
        retryBase,
        retryCap,
        kind,
        livekit.url(),
        livekit.apiKey(),
        masked(livekit.apiSecret()),
        jibri.url());
  }

  private static @Nullable String masked(@Nullable String secret) {
    return secret == null ? null : "****";
  }

  private static void httpUrl(List<String> errors, String property, @Nullable URI url) {
    if (url != null
        && (url.getScheme() == null
            || !(url.getScheme().equals("http") || url.getScheme().equals("https"))
            || url.getHost() == null)) {
      errors.add(property + " must be an absolute http(s) URL but was '" + url + "'");
    }
  }

  private static void required(
      List<String> errors, String kind, String property, @Nullable Object value) {
    if (value == null || value.toString().isBlank()) {
      errors.add(property + " must be set when reaper.recorder.kind=" + kind + " but was not set");
    }
  }

  /**
   * Server-side bound of each dispatcher statement: derived from the lease, see {@link
   * LeaseBudget#statementTimeout}.
   */
  public Duration statementTimeout() {
    return LeaseBudget.statementTimeout(lease);
  }

  /** The longest the calls of one step are awaited: every call is bounded by this. */
  public Duration callBound() {
    return connectTimeout.plus(readTimeout);
  }
}
