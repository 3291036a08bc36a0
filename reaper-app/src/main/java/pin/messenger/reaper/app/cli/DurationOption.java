package pin.messenger.reaper.app.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The one definition of a duration an operator types on a command line ({@code pause --for}, {@code
 * requeue --since}, {@code demo --duration}): a whole number with a unit, {@code 30s}, {@code 15m},
 * {@code 2h}, {@code 1d}, or ISO-8601 ({@code PT30M}, {@code P1D}); positive. A number without a
 * unit is refused, never read as milliseconds (Spring's convention for configuration properties,
 * which would end {@code pause --for 30} 30 ms later); so are {@code ms}, {@code us} and {@code
 * ns}, which no operator means for a pause or a look-back.
 */
public final class DurationOption {
  /** The accepted forms, as every refusal names them. */
  public static final String FORMS = "30s, 15m, 2h, 1d or ISO-8601 such as PT30M";

  private static final Pattern SIMPLE = Pattern.compile("([0-9]{1,9})([smhd])");

  private DurationOption() {}

  /**
   * {@code text} as a positive duration, else a usage error (exit 2) naming {@code --option} and
   * the accepted forms.
   */
  public static Duration parse(String option, String text) {
    Duration d = parseOrNull(text);
    if (d == null) {
      throw new ReaperCli.UsageException(
          "--" + option + " '" + text + "' is not a duration: give " + FORMS);
    }
    if (d.isNegative() || d.isZero()) {
      throw new ReaperCli.UsageException("--" + option + " '" + text + "' must be positive");
    }
    return d;
  }

  /**
   * A moment: an ISO-8601 instant ({@code 2026-12-02T10:00:00Z}) or a duration ago ({@code 2h}),
   * else a usage error naming {@code --option} and both forms.
   */
  public static Instant since(String option, String text, Instant now) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      if (parseOrNull(text) == null) {
        throw new ReaperCli.UsageException(
            "--"
                + option
                + " '"
                + text
                + "' is not a duration ago ("
                + FORMS
                + ") nor an instant (2026-12-02T10:00:00Z)");
      }
      return now.minus(parse(option, text));
    }
  }

  private static @Nullable Duration parseOrNull(String text) {
    Matcher m = SIMPLE.matcher(text);
    if (m.matches()) {
      ChronoUnit unit =
          switch (m.group(2)) {
            case "s" -> ChronoUnit.SECONDS;
            case "m" -> ChronoUnit.MINUTES;
            case "h" -> ChronoUnit.HOURS;
            default -> ChronoUnit.DAYS;
          };
      return Duration.of(Long.parseLong(m.group(1)), unit);
    }
    String upper = text.toUpperCase(Locale.ROOT);
    if (upper.startsWith("P") || upper.startsWith("-P") || upper.startsWith("+P")) {
      try {
        return Duration.parse(text);
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    return null;
  }
}
