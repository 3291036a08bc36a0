package pin.messenger.reaper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.InvalidOptionsException;
import pin.messenger.reaper.delivery.RecorderOptions;
import pin.messenger.reaper.delivery.RelayOptions;

/**
 * The Spring binding has no defaults of its own: with nothing set, every option it binds equals the
 * options type's default (the records' equality compares every component).
 */
class ConfigurationDefaultsTest {

  private static <T> T bindNothing(Class<T> type) {
    return bind(type, Map.of());
  }

  private static <T> T bind(Class<T> type, Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("reaper", type);
  }

  @Test
  void reaper_binding_with_nothing_set_is_the_core_defaults() {
    assertThat(bindNothing(ReaperProperties.class).toOptions())
        .isEqualTo(ConferenceRoomReaperOptions.defaults());
  }

  @Test
  void relay_binding_with_nothing_set_is_the_relay_defaults() {
    DeliveryProperties.Relay relay = bindNothing(DeliveryProperties.class).relay();
    assertThat(relay.toOptions()).isEqualTo(RelayOptions.defaults());
    assertThat(relay.sendTimeout()).isEqualTo(RelayOptions.DEFAULT_SEND_TIMEOUT);
  }

  @Test
  void recorder_binding_with_nothing_set_is_the_recorder_defaults_and_off() {
    RecorderOptions recorder = bindNothing(DeliveryProperties.class).recorder().toOptions();
    assertThat(recorder).isEqualTo(RecorderOptions.defaults(null));
    assertThat(recorder.enabled()).isFalse();
  }

  @Test
  void recorder_kind_livekit_binds_its_url_key_and_secret_and_keeps_the_other_defaults() {
    RecorderOptions recorder =
        bind(
                DeliveryProperties.class,
                Map.of(
                    "reaper.recorder.kind", "livekit",
                    "reaper.recorder.livekit.url", "https://livekit.example.org",
                    "reaper.recorder.livekit.api-key", "APIkey",
                    "reaper.recorder.livekit.api-secret",
                        "a-livekit-api-secret-of-at-least-32-bytes"))
            .recorder()
            .toOptions();
    assertThat(recorder)
        .isEqualTo(
            RecorderOptions.defaults(null)
                .withKind(
                    RecorderOptions.Kind.LIVEKIT,
                    URI.create("https://livekit.example.org"),
                    "APIkey",
                    "a-livekit-api-secret-of-at-least-32-bytes",
                    null));
    assertThat(recorder.enabled()).isTrue();
  }

  @Test
  void recorder_kind_jibri_binds_its_url() {
    RecorderOptions recorder =
        bind(
                DeliveryProperties.class,
                Map.of(
                    "reaper.recorder.kind",
                    "jibri",
                    "reaper.recorder.jibri.url",
                    "http://jibri:2222"))
            .recorder()
            .toOptions();
    assertThat(recorder.kind()).isEqualTo(RecorderOptions.Kind.JIBRI);
    assertThat(recorder.jibriUrl()).isEqualTo(URI.create("http://jibri:2222"));
  }

  @Test
  void recorder_kind_livekit_without_its_secret_fails_naming_the_property() {
    DeliveryProperties.Recorder bound =
        bind(
                DeliveryProperties.class,
                Map.of(
                    "reaper.recorder.kind", "livekit",
                    "reaper.recorder.livekit.url", "https://livekit.example.org",
                    "reaper.recorder.livekit.api-key", "APIkey"))
            .recorder();
    assertThatThrownBy(bound::toOptions)
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining("reaper.recorder.livekit.api-secret must be set");
  }

  @Test
  void a_set_property_wins_over_the_default_and_the_others_keep_theirs() {
    ConferenceRoomReaperOptions options =
        bind(
                ReaperProperties.class,
                Map.of("reaper.batch-size", "7", "reaper.drain.enabled", "true"))
            .toOptions();
    assertThat(options)
        .isEqualTo(
            ConferenceRoomReaperOptions.defaults().toBuilder()
                .batchSize(7)
                .drainEnabled(true)
                .build());
    DeliveryProperties.Relay relay =
        bind(DeliveryProperties.class, Map.of("reaper.relay.send-timeout", "5s")).relay();
    assertThat(relay.sendTimeout()).isEqualTo(Duration.ofSeconds(5));
    RelayOptions d = RelayOptions.defaults();
    assertThat(relay.toOptions())
        .isEqualTo(
            new RelayOptions(
                d.batchSize(),
                d.pollInterval(),
                d.lease(),
                d.maxAttempts(),
                d.retryBase(),
                d.retryCap(),
                d.retention(),
                d.retentionBatch(),
                d.source(),
                Duration.ofSeconds(5)));
  }
}
