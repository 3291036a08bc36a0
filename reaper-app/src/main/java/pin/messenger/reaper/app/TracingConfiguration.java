package pin.messenger.reaper.app;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import pin.messenger.reaper.telemetry.ReaperTracing;

/**
 * OpenTelemetry from the standard settings (OTEL_* environment variables or otel.* system
 * properties): export is off unless {@code OTEL_TRACES_EXPORTER} (e.g. {@code otlp}) is set, with
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} etc.
 */
@Configuration(proxyBeanMethods = false)
public class TracingConfiguration {

  /** Defaults below the standard settings: nothing is exported unless the operator says where. */
  static final Map<String, String> DEFAULTS =
      Map.of(
          "otel.service.name", "conference-room-reaper",
          "otel.traces.exporter", "none",
          "otel.metrics.exporter", "none",
          "otel.logs.exporter", "none");

  @Bean(destroyMethod = "close")
  OpenTelemetrySdk openTelemetry() {
    return AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> DEFAULTS)
        .disableShutdownHook()
        .build()
        .getOpenTelemetrySdk();
  }

  @Bean
  ReaperTracing reaperTracing(OpenTelemetry openTelemetry) {
    return new ReaperTracing(openTelemetry);
  }
}
