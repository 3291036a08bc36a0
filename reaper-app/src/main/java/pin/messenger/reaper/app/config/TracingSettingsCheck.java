package pin.messenger.reaper.app.config;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.app.config.OtelSettings.InvalidTracingSettingException;

/**
 * Checks the OpenTelemetry settings before the context is refreshed (registered in {@code
 * META-INF/spring.factories}): a protocol the jar cannot export with stops the start-up before any
 * bean (database pool, Kafka producer) exists, reported by {@link Analyzer} as one line instead of
 * the SDK's error under a chain of bean errors.
 */
public final class TracingSettingsCheck
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {
  @Override
  public void initialize(ConfigurableApplicationContext context) {
    OtelSettings.current().checkExportProtocols();
  }

  /** The start-up failure report of an invalid OpenTelemetry setting: its message, one line. */
  public static final class Analyzer
      extends AbstractFailureAnalyzer<InvalidTracingSettingException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidTracingSettingException cause) {
      return new FailureAnalysis(
          cause.getMessage(),
          "Unset the setting named above or set it to " + OtelSettings.HTTP_PROTOBUF + ".",
          cause);
    }
  }
}
