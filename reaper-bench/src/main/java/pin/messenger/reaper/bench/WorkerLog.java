package pin.messenger.reaper.bench;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The worker's JSON log lines as the bench reads them back: which event a line is, and its numeric
 * fields ({@code cycle completed} carries {@code durationMs} and a count per phase).
 */
final class WorkerLog {
  static final String CYCLE_STARTED = message("cycle started");
  static final String CYCLE_COMPLETED = message("cycle completed");
  static final String CONFERENCE_REAPED = message("conference reaped");

  private static final Pattern TIMESTAMP = Pattern.compile("\"@timestamp\":\"([^\"]+)\"");
  private static final Map<String, Pattern> FIELDS = new ConcurrentHashMap<>();

  private WorkerLog() {}

  /** The text a line of that event contains: its {@code message} field. */
  static String message(String event) {
    return "\"message\":\"" + event + "\"";
  }

  /** A numeric field of the line; 0 when the line has none. */
  static long field(String line, String name) {
    Matcher m =
        FIELDS.computeIfAbsent(name, n -> Pattern.compile("\"" + n + "\":(\\d+)")).matcher(line);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  /** Rooms a {@code cycle completed} line says the cycle closed, all three phases. */
  static long closed(String line) {
    return field(line, "emptyTimeout")
        + field(line, "provisionFailed")
        + field(line, "staleTimeout");
  }

  /** When the line was logged. */
  static Optional<Instant> timestamp(String line) {
    Matcher m = TIMESTAMP.matcher(line);
    return m.find() ? Optional.of(Instant.parse(m.group(1))) : Optional.empty();
  }
}
