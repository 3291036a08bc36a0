package pin.messenger.reaper.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.app.config.OtelSettings.InvalidTracingSettingException;

/**
 * How the worker reads the settings it checks itself: as the SDK does (system property over
 * environment variable over the worker's default). The jar's behaviour from outside is
 * TracingBlackBoxIT's.
 */
class OtelSettingsTest {

  private static OtelSettings settings(Map<String, String> properties, Map<String, String> env) {
    return new OtelSettings(properties::get, env::get, TracingConfiguration.DEFAULTS);
  }

  @Test
  void the_default_protocol_is_http_protobuf_and_export_with_it_passes() {
    OtelSettings s = settings(Map.of(), Map.of("OTEL_TRACES_EXPORTER", "otlp"));
    assertThat(s.get("otel.exporter.otlp.protocol"))
        .isEqualTo(new OtelSettings.Setting("http/protobuf", "default"));
    assertThatCode(s::checkExportProtocols).doesNotThrowAnyException();
  }

  @Test
  void grpc_for_an_otlp_exporter_is_refused_naming_the_variable_as_set() {
    assertThatThrownBy(
            () ->
                settings(
                        Map.of(),
                        Map.of(
                            "OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"))
                    .checkExportProtocols())
        .isInstanceOf(InvalidTracingSettingException.class)
        .hasMessageStartingWith("Invalid OpenTelemetry setting: OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
        .hasMessageContaining("accepted: http/protobuf")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(
            () ->
                settings(
                        Map.of("otel.exporter.otlp.metrics.protocol", "http/json"),
                        Map.of("OTEL_METRICS_EXPORTER", "logging,otlp"))
                    .checkExportProtocols())
        .hasMessageContaining("otel.exporter.otlp.metrics.protocol=http/json");
  }

  @Test
  void the_signals_own_protocol_wins_and_a_system_property_beats_the_environment() {
    assertThatCode(
            () ->
                settings(
                        Map.of(),
                        Map.of(
                            "OTEL_TRACES_EXPORTER", "otlp",
                            "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc",
                            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"))
                    .checkExportProtocols())
        .doesNotThrowAnyException();
    assertThat(
            settings(Map.of("otel.sdk.disabled", "false"), Map.of("OTEL_SDK_DISABLED", "true"))
                .sdkDisabled())
        .isFalse();
    assertThat(settings(Map.of(), Map.of("OTEL_SDK_DISABLED", "TRUE")).sdkDisabled()).isTrue();
    assertThat(settings(Map.of(), Map.of("OTEL_SDK_DISABLED", " ")).sdkDisabled()).isFalse();
  }

  @Test
  void a_protocol_nothing_exports_with_is_not_checked() {
    assertThatCode(
            () ->
                settings(Map.of(), Map.of("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"))
                    .checkExportProtocols())
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                settings(
                        Map.of(),
                        Map.of(
                            "OTEL_SDK_DISABLED", "true",
                            "OTEL_TRACES_EXPORTER", "otlp",
                            "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"))
                    .checkExportProtocols())
        .doesNotThrowAnyException();
  }
}
