package pin.messenger.reaper.app.config;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import pin.messenger.reaper.telemetry.ReaperTracing;

/**
 * OpenTelemetry from the standard settings (OTEL_* environment variables or otel.* system
 * properties). By default, without any collector, spans are made and their context is stored on the
 * rows and propagated on the records and recorder calls; export is off unless {@code
 * OTEL_TRACES_EXPORTER} (e.g. {@code otlp}) is set, with {@code OTEL_EXPORTER_OTLP_ENDPOINT}, over
 * {@code http/protobuf} unless said otherwise ({@link TracingSettingsCheck} refuses a protocol the
 * jar cannot export with). {@code OTEL_SDK_DISABLED=true} (or {@code -Dotel.sdk.disabled=true})
 * turns tracing off altogether: {@link OpenTelemetry#noop()}, so no context is made, stored or
 * sent.
 */
@Configuration(proxyBeanMethods = false)
public class TracingConfiguration {
  private static final Logger log = LoggerFactory.getLogger(TracingConfiguration.class);

  /**
   * Defaults below the standard settings: nothing is exported unless the operator says where, and
   * OTLP goes over HTTP (the jar carries the JDK HTTP sender only; the SDK's own default is gRPC),
   * as the OpenTelemetry Java agent 2.x does.
   */
  static final Map<String, String> DEFAULTS =
      Map.of(
          "otel.service.name", "conference-room-reaper",
          "otel.traces.exporter", "none",
          "otel.metrics.exporter", "none",
          "otel.logs.exporter", "none",
          "otel.exporter.otlp.protocol", OtelSettings.HTTP_PROTOBUF);

  /** The SDK (closed with the context), or the no-op API when the SDK is disabled. */
  @Bean
  OpenTelemetry openTelemetry() {
    if (OtelSettings.current().sdkDisabled()) {
      log.atInfo().log(
          "tracing off (OTEL_SDK_DISABLED / otel.sdk.disabled): no span is made, no trace"
              + " context stored on rows or sent on records and recorder calls");
      return OpenTelemetry.noop();
    }
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
