package pin.messenger.reaper.app;

import static pin.messenger.reaper.app.ReaperProperties.or;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import pin.messenger.reaper.delivery.RecorderOptions;
import pin.messenger.reaper.delivery.RelayOptions;

/**
 * Binding of {@code reaper.relay.*} and {@code reaper.recorder.*}. A property that is not set binds
 * as null and takes the delivery options' default ({@link RelayOptions#defaults()}, {@link
 * RecorderOptions#defaults(URI)}); validation is the options types' own.
 */
@ConfigurationProperties(prefix = "reaper")
public record DeliveryProperties(@DefaultValue Relay relay, @DefaultValue Recorder recorder) {

  /** The Kafka relay; it runs when {@code spring.kafka.bootstrap-servers} is set. */
  public record Relay(
      Integer batchSize,
      Duration pollInterval,
      Duration lease,
      Integer maxAttempts,
      Duration retryBase,
      Duration retryCap,
      Duration retention,
      Integer retentionBatch,
      String source,
      Duration sendTimeout,
      Duration outageLogInterval) {

    private static final RelayOptions DEFAULTS = RelayOptions.defaults();

    // Each unset field falls back to RelayOptions' own default, one line a field on purpose (the
    // same
    // shape as Recorder and ReaperProperties); ConfigurationDefaultsTest checks they agree.
    public Relay {
      batchSize = or(batchSize, DEFAULTS.batchSize());
      pollInterval = or(pollInterval, DEFAULTS.pollInterval());
      lease = or(lease, DEFAULTS.lease());
      maxAttempts = or(maxAttempts, DEFAULTS.maxAttempts());
      retryBase = or(retryBase, DEFAULTS.retryBase());
      retryCap = or(retryCap, DEFAULTS.retryCap());
      retention = or(retention, DEFAULTS.retention());
      retentionBatch = or(retentionBatch, DEFAULTS.retentionBatch());
      source = or(source, DEFAULTS.source());
      sendTimeout = or(sendTimeout, DEFAULTS.sendTimeout());
      outageLogInterval = or(outageLogInterval, DEFAULTS.outageLogInterval());
    }

    // Mirrors RelayOptions' constructor argument by argument on purpose: the Spring binding stays
    // out of reaper-delivery; ConfigurationDefaultsTest checks the two agree.
    RelayOptions toOptions() {
      return new RelayOptions(
          batchSize,
          pollInterval,
          lease,
          maxAttempts,
          retryBase,
          retryCap,
          retention,
          retentionBatch,
          source,
          sendTimeout,
          outageLogInterval);
    }
  }

  /**
   * The recorder-stop dispatcher; it runs when {@code reaper.recorder.base-url} is set (kind {@code
   * http}, the default) or {@code reaper.recorder.kind} is {@code livekit} or {@code jibri}.
   */
  public record Recorder(
      RecorderOptions.Kind kind,
      @DefaultValue Livekit livekit,
      @DefaultValue Jibri jibri,
      URI baseUrl,
      Duration connectTimeout,
      Duration readTimeout,
      Integer batchSize,
      Duration pollInterval,
      Duration lease,
      Integer maxAttempts,
      Duration retryBase,
      Duration retryCap) {

    private static final RecorderOptions DEFAULTS = RecorderOptions.defaults(null);

    // Field by field like Relay on purpose: unset falls back to RecorderOptions' default;
    // ConfigurationDefaultsTest checks they agree.
    public Recorder {
      kind = or(kind, DEFAULTS.kind());
      connectTimeout = or(connectTimeout, DEFAULTS.connectTimeout());
      readTimeout = or(readTimeout, DEFAULTS.readTimeout());
      batchSize = or(batchSize, DEFAULTS.batchSize());
      pollInterval = or(pollInterval, DEFAULTS.pollInterval());
      lease = or(lease, DEFAULTS.lease());
      maxAttempts = or(maxAttempts, DEFAULTS.maxAttempts());
      retryBase = or(retryBase, DEFAULTS.retryBase());
      retryCap = or(retryCap, DEFAULTS.retryCap());
    }

    RecorderOptions toOptions() {
      return new RecorderOptions(
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
          livekit.apiSecret(),
          jibri.url());
    }
  }

  /**
   * {@code reaper.recorder.livekit.*}, used when {@code reaper.recorder.kind=livekit}; no defaults.
   */
  public record Livekit(URI url, String apiKey, String apiSecret) {
    @Override
    public String toString() {
      return "Livekit[url=" + url + ", apiKey=" + apiKey + ", apiSecret=****]";
    }
  }

  /** {@code reaper.recorder.jibri.*}, used when {@code reaper.recorder.kind=jibri}; no defaults. */
  public record Jibri(URI url) {}
}
