package pin.messenger.reaper.app.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The few OpenTelemetry settings the worker reads itself, resolved the way the SDK's
 * autoconfiguration resolves them: the {@code otel.*} system property, else its {@code OTEL_*}
 * environment variable (upper case, dots as underscores), else the worker's default ({@link
 * TracingConfiguration#DEFAULTS}); a blank value counts as unset.
 */
final class OtelSettings {
  /** The one OTLP protocol this jar exports with (it carries the JDK HTTP sender, no gRPC). */
  static final String HTTP_PROTOBUF = "http/protobuf";

  static final String SDK_DISABLED = "otel.sdk.disabled";

  private static final List<String> SIGNALS = List.of("traces", "metrics", "logs");

  /** A setting's value and the name it was set under ({@code default}: the worker's default). */
  record Setting(String value, String source) {}

  private final Function<String, @Nullable String> systemProperties;
  private final Function<String, @Nullable String> environment;
  private final Map<String, String> defaults;

  OtelSettings(
      Function<String, @Nullable String> systemProperties,
      Function<String, @Nullable String> environment,
      Map<String, String> defaults) {
    this.systemProperties = systemProperties;
    this.environment = environment;
    this.defaults = defaults;
  }

  /** This process's settings. */
  static OtelSettings current() {
    return new OtelSettings(System::getProperty, System::getenv, TracingConfiguration.DEFAULTS);
  }

  static String environmentName(String key) {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  @Nullable Setting get(String key) {
    String property = systemProperties.apply(key);
    if (property != null && !property.isBlank()) {
      return new Setting(property.strip(), key);
    }
    String variable = environmentName(key);
    String env = environment.apply(variable);
    if (env != null && !env.isBlank()) {
      return new Setting(env.strip(), variable);
    }
    String fallback = defaults.get(key);
    return fallback == null ? null : new Setting(fallback, "default");
  }

  /** {@code OTEL_SDK_DISABLED=true} or {@code -Dotel.sdk.disabled=true}: tracing off altogether. */
  boolean sdkDisabled() {
    Setting s = get(SDK_DISABLED);
    return s != null && Boolean.parseBoolean(s.value());
  }

  /**
   * Refuses an OTLP protocol this jar cannot export with, for each signal whose exporter is {@code
   * otlp} (the signal's own {@code otel.exporter.otlp.<signal>.protocol} first, then {@code
   * otel.exporter.otlp.protocol}, as the SDK reads them): one message naming the setting as it was
   * set and the accepted value. Nothing is checked when the SDK is disabled (it exports nothing).
   */
  void checkExportProtocols() {
    if (sdkDisabled()) {
      return;
    }
    for (String signal : SIGNALS) {
      Setting exporter = get("otel." + signal + ".exporter");
      if (exporter == null
          || Arrays.stream(exporter.value().split(",")).noneMatch(e -> e.strip().equals("otlp"))) {
        continue;
      }
      Setting protocol = get("otel.exporter.otlp." + signal + ".protocol");
      if (protocol == null) {
        protocol = get("otel.exporter.otlp.protocol");
      }
      if (protocol != null && !protocol.value().equals(HTTP_PROTOBUF)) {
        throw new InvalidTracingSettingException(
            protocol.source()
                + "="
                + protocol.value()
                + " cannot be used: this worker exports OTLP over HTTP only; accepted: "
                + HTTP_PROTOBUF
                + " (the default when neither OTEL_EXPORTER_OTLP_PROTOCOL nor"
                + " OTEL_EXPORTER_OTLP_"
                + signal.toUpperCase(Locale.ROOT)
                + "_PROTOCOL is set), to an endpoint such as http://collector:4318");
      }
    }
  }

  /** An OpenTelemetry setting the worker cannot run with; the message names it. */
  static final class InvalidTracingSettingException extends RuntimeException {
    InvalidTracingSettingException(String message) {
      super("Invalid OpenTelemetry setting: " + message);
    }
  }
}
