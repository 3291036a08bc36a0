package pin.messenger.reaper.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.logging.logback.StructuredLogEncoder;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** The string path writes exactly Boot's bytes, and is the path taken. */
class StringStructuredLogEncoderTest {

  @ParameterizedTest
  @ValueSource(strings = {"ecs", "logstash", "gelf"})
  void every_line_is_byte_for_byte_what_boots_encoder_writes(String format) {
    LoggerContext context = context();
    StructuredLogEncoder boot = new StructuredLogEncoder();
    StringStructuredLogEncoder ours = new StringStructuredLogEncoder();
    for (StructuredLogEncoder e : List.of(boot, ours)) {
      e.setContext(context);
      e.setFormat(format);
      e.setCharset(StandardCharsets.UTF_8);
      e.start();
    }
    assertThat(ours.direct()).as("the string path is taken (Boot's field is reachable)").isTrue();
    for (ILoggingEvent event : events(context)) {
      assertThat(new String(ours.encode(event), StandardCharsets.UTF_8))
          .isEqualTo(new String(boot.encode(event), StandardCharsets.UTF_8));
      assertThat(ours.encode(event)).isEqualTo(boot.encode(event));
    }
  }

  private static LoggerContext context() {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "test",
                Map.of(
                    "spring.application.name", "conference-room-reaper",
                    "logging.structured.ecs.service.version", "0.1.0")));
    context.putObject(Environment.class.getName(), environment);
    return context;
  }

  private static List<ILoggingEvent> events(LoggerContext context) {
    Logger logger = context.getLogger("pin.messenger.reaper.core.PhaseRunner");
    LoggingEvent plain =
        new LoggingEvent(
            Logger.class.getName(),
            logger,
            Level.INFO,
            "conference reaped {}",
            null,
            new Object[] {"4f0c2a4e-0f0e-4f5e-9a53-1f0d2e3c4b5a"});
    LoggingEvent withMdc =
        new LoggingEvent(
            Logger.class.getName(),
            logger,
            Level.WARN,
            "quotes \" back\\slash tab\t newline\n unicode ü 日本 \uD83D\uDE00 control \u0001",
            null,
            null);
    withMdc.setMDCPropertyMap(Map.of("jobRunId", "run-1", "phase", "empty-room"));
    LoggingEvent failed =
        new LoggingEvent(
            Logger.class.getName(),
            logger,
            Level.ERROR,
            "batch failed",
            new IllegalStateException("boom", new RuntimeException("cause ü")),
            null);
    return List.of(plain, withMdc, failed);
  }
}
