package pin.messenger.reaper.telemetry;

import ch.qos.logback.classic.spi.ILoggingEvent;
import java.lang.reflect.Field;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.logging.logback.StructuredLogEncoder;
import org.springframework.boot.logging.structured.StructuredLogFormatter;

/**
 * Spring Boot's structured encoder (the same formatter, fields and bytes), writing each line
 * through a string instead of a character stream.
 *
 * <p>Boot's {@code StructuredLogEncoder} asks its JSON formatter for bytes, and the formatter
 * writes them through an unbuffered {@code OutputStreamWriter}: every character of every line is
 * one call into the charset encoder. In a profile of a 20,000-room drain at INFO that was the
 * busiest thread of the worker, busier than the cycle's own (docs/benchmarks.md, "Where the drain
 * time goes"). The formatter's {@code format} writes the same JSON into a {@code StringBuilder};
 * encoding that string once is a bulk copy.
 *
 * <p>The formatter is Boot's private field: if a Boot version renames it, this encoder says so once
 * and falls back to Boot's own path (same bytes, slower); {@code StringStructuredLogEncoderTest}
 * fails on that, so an upgrade notices.
 */
public class StringStructuredLogEncoder extends StructuredLogEncoder {
  private @Nullable StructuredLogFormatter<ILoggingEvent> formatter;
  private Charset charset = StandardCharsets.UTF_8;

  @Override
  public void setCharset(@Nullable Charset charset) {
    super.setCharset(charset);
    this.charset = charset == null ? StandardCharsets.UTF_8 : charset;
  }

  @Override
  public void start() {
    super.start();
    formatter = bootsFormatter();
  }

  @Override
  public void stop() {
    formatter = null;
    super.stop();
  }

  /** Whether lines take the string path (false: Boot's own, after a failed lookup). */
  boolean direct() {
    return formatter != null;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    StructuredLogFormatter<ILoggingEvent> f = formatter;
    return f == null ? super.encode(event) : f.format(event).getBytes(charset);
  }

  @SuppressWarnings("unchecked")
  private @Nullable StructuredLogFormatter<ILoggingEvent> bootsFormatter() {
    try {
      Field field = StructuredLogEncoder.class.getDeclaredField("formatter");
      field.setAccessible(true);
      return (StructuredLogFormatter<ILoggingEvent>) field.get(this);
    } catch (ReflectiveOperationException | RuntimeException e) {
      addWarn(
          "Spring Boot's structured log formatter is not reachable ("
              + e
              + "); lines are encoded by Boot's own, slower path",
          e);
      return null;
    }
  }
}
