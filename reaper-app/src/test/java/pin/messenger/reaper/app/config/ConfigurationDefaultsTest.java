package pin.messenger.reaper.app.config;

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

  private static OptionsBinding bindNothing() {
    return bind(Map.of());
  }

  private static OptionsBinding bind(Map<String, String> properties) {
    return new OptionsBinding(new Binder(new MapConfigurationPropertySource(properties)));
  }

  @Test
  void reaper_binding_with_nothing_set_is_the_core_defaults() {
    assertThat(bindNothing().reaper()).isEqualTo(ConferenceRoomReaperOptions.defaults());
  }

  @Test
  void relay_binding_with_nothing_set_is_the_relay_defaults() {
    RelayOptions relay = bindNothing().relay();
    assertThat(relay).isEqualTo(RelayOptions.defaults());
    assertThat(relay.sendTimeout()).isEqualTo(RelayOptions.DEFAULT_SEND_TIMEOUT);
  }

  @Test
  void recorder_binding_with_nothing_set_is_the_recorder_defaults_and_off() {
    RecorderOptions recorder = bindNothing().recorder();
    assertThat(recorder).isEqualTo(RecorderOptions.defaults(null));
    assertThat(recorder.enabled()).isFalse();
  }

  @Test
  void recorder_kind_livekit_binds_its_url_key_and_secret_and_keeps_the_other_defaults() {
    RecorderOptions d = RecorderOptions.defaults(null);
    RecorderOptions recorder =
        bind(Map.of(
                "reaper.recorder.kind", "livekit",
                "reaper.recorder.livekit.url", "https://livekit.example.org",
                "reaper.recorder.livekit.api-key", "APIkey",
                "reaper.recorder.livekit.api-secret", "a-livekit-api-secret-of-at-least-32-bytes"))
            .recorder();
    assertThat(recorder)
        .isEqualTo(
            new RecorderOptions(
                d.baseUrl(),
                d.connectTimeout(),
                d.readTimeout(),
                d.batchSize(),
                d.pollInterval(),
                d.lease(),
                d.maxAttempts(),
                d.retryBase(),
                d.retryCap(),
                RecorderOptions.Kind.LIVEKIT,
                new RecorderOptions.LiveKit(
                    URI.create("https://livekit.example.org"),
                    "APIkey",
                    "a-livekit-api-secret-of-at-least-32-bytes"),
                RecorderOptions.Jibri.NONE));
    assertThat(recorder.enabled()).isTrue();
  }

  @Test
  void recorder_kind_jibri_binds_its_url() {
    RecorderOptions recorder =
        bind(Map.of(
                "reaper.recorder.kind", "jibri", "reaper.recorder.jibri.url", "http://jibri:2222"))
            .recorder();
    assertThat(recorder.kind()).isEqualTo(RecorderOptions.Kind.JIBRI);
    assertThat(recorder.jibri().url()).isEqualTo(URI.create("http://jibri:2222"));
  }

  @Test
  void recorder_kind_livekit_without_its_secret_fails_naming_the_property() {
    OptionsBinding bound =
        bind(
            Map.of(
                "reaper.recorder.kind", "livekit",
                "reaper.recorder.livekit.url", "https://livekit.example.org",
                "reaper.recorder.livekit.api-key", "APIkey"));
    assertThatThrownBy(bound::recorder)
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining("reaper.recorder.livekit.api-secret must be set");
  }

  @Test
  void a_set_property_wins_over_the_default_and_the_others_keep_theirs() {
    ConferenceRoomReaperOptions options =
        bind(Map.of("reaper.batch-size", "7", "reaper.drain.enabled", "true")).reaper();
    assertThat(options)
        .isEqualTo(
            ConferenceRoomReaperOptions.defaults().toBuilder()
                .batchSize(7)
                .drainEnabled(true)
                .build());
    RelayOptions relay = bind(Map.of("reaper.relay.send-timeout", "5s")).relay();
    assertThat(relay.sendTimeout()).isEqualTo(Duration.ofSeconds(5));
    RelayOptions d = RelayOptions.defaults();
    assertThat(relay)
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
                Duration.ofSeconds(5),
                RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL));
  }
}
