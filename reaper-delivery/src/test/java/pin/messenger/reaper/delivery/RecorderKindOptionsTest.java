package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.InvalidOptionsException;

/** {@code reaper.recorder.kind} and each kind's settings are checked at start-up. */
class RecorderKindOptionsTest {
  static final URI URL = URI.create("https://livekit.example.org");
  static final String SECRET = "a-livekit-api-secret-of-at-least-32-bytes";

  static RecorderOptions kind(
      RecorderOptions.@Nullable Kind kind,
      @Nullable URI liveKitUrl,
      @Nullable String key,
      @Nullable String secret,
      @Nullable URI jibriUrl) {
    RecorderOptions d = RecorderOptions.defaults(null);
    return new RecorderOptions(
        null,
        d.connectTimeout(),
        d.readTimeout(),
        d.batchSize(),
        d.pollInterval(),
        d.lease(),
        d.maxAttempts(),
        d.retryBase(),
        d.retryCap(),
        kind,
        new RecorderOptions.LiveKit(liveKitUrl, key, secret),
        new RecorderOptions.Jibri(jibriUrl));
  }

  @Test
  void the_default_kind_is_http_and_off_without_a_base_url() {
    assertThat(RecorderOptions.defaults(null).kind()).isEqualTo(RecorderOptions.Kind.HTTP);
    assertThat(RecorderOptions.defaults(null).enabled()).isFalse();
  }

  @Test
  void a_complete_livekit_configuration_is_on_and_never_prints_its_secret() {
    RecorderOptions o = kind(RecorderOptions.Kind.LIVEKIT, URL, "APIkey", SECRET, null);

    assertThat(o.enabled()).isTrue();
    assertThat(o.endpoint()).isEqualTo(URL);
    assertThat(o.toString()).doesNotContain(SECRET).contains("liveKitApiSecret=****");
  }

  @Test
  void livekit_without_url_key_or_secret_names_each_missing_property() {
    assertThatThrownBy(() -> kind(RecorderOptions.Kind.LIVEKIT, null, null, " ", null))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining(
            "reaper.recorder.livekit.url must be set when reaper.recorder.kind=livekit")
        .hasMessageContaining("reaper.recorder.livekit.api-key must be set")
        .hasMessageContaining("reaper.recorder.livekit.api-secret must be set");
  }

  @Test
  void a_livekit_secret_too_short_for_hs256_is_rejected() {
    assertThatThrownBy(() -> kind(RecorderOptions.Kind.LIVEKIT, URL, "APIkey", "secret", null))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining("reaper.recorder.livekit.api-secret must be at least 32 bytes");
  }

  @Test
  void jibri_without_its_url_names_the_property() {
    assertThatThrownBy(() -> kind(RecorderOptions.Kind.JIBRI, null, null, null, null))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining(
            "reaper.recorder.jibri.url must be set when reaper.recorder.kind=jibri");
  }

  @Test
  void a_jibri_url_that_is_not_http_is_rejected() {
    assertThatThrownBy(
            () -> kind(RecorderOptions.Kind.JIBRI, null, null, null, URI.create("ftp://jibri")))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining("reaper.recorder.jibri.url must be an absolute http(s) URL");
  }

  @Test
  void a_missing_kind_is_rejected() {
    assertThatThrownBy(() -> kind(null, null, null, null, null))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining("reaper.recorder.kind must be one of http, livekit, jibri");
  }
}
