package pin.messenger.reaper.app;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import pin.messenger.reaper.delivery.RecorderOptions;
import pin.messenger.reaper.delivery.RelayOptions;

/**
 * Binding of {@code reaper.relay.*} and {@code reaper.recorder.*}; validation is the core options'
 * own.
 */
@ConfigurationProperties(prefix = "reaper")
public record DeliveryProperties(@DefaultValue Relay relay, @DefaultValue Recorder recorder) {

  /** The Kafka relay; it runs when {@code spring.kafka.bootstrap-servers} is set. */
  public record Relay(
      @DefaultValue("100") int batchSize,
      @DefaultValue("1s") Duration pollInterval,
      @DefaultValue("2m") Duration lease,
      @DefaultValue("10") int maxAttempts,
      @DefaultValue("1s") Duration retryBase,
      @DefaultValue("5m") Duration retryCap,
      @DefaultValue("7d") Duration retention,
      @DefaultValue("1000") int retentionBatch,
      @DefaultValue(RelayOptions.DEFAULT_SOURCE) String source,
      @DefaultValue("30s") Duration sendTimeout) {

    RelayOptions toOptions() {
      if (sendTimeout == null || sendTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new pin.messenger.reaper.core.InvalidOptionsException(
            java.util.List.of(
                "reaper.relay.send-timeout must be at least 1s but was " + sendTimeout));
      }
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
          sendTimeout);
    }
  }

  /** The recorder-stop dispatcher; it runs when {@code reaper.recorder.base-url} is set. */
  public record Recorder(
      URI baseUrl,
      @DefaultValue("2s") Duration connectTimeout,
      @DefaultValue("5s") Duration readTimeout,
      @DefaultValue("50") int batchSize,
      @DefaultValue("1s") Duration pollInterval,
      @DefaultValue("1m") Duration lease,
      @DefaultValue("10") int maxAttempts,
      @DefaultValue("1s") Duration retryBase,
      @DefaultValue("5m") Duration retryCap) {

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
          retryCap);
    }
  }
}
