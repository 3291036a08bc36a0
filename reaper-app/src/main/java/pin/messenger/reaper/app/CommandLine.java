package pin.messenger.reaper.app;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A command's own options, taken out of its argument list ({@code --name value} or {@code
 * --name=value}, and flags); what is left are the Spring-style {@code --x.y=z} options.
 */
final class CommandLine {
  private final List<String> args;

  CommandLine(List<String> args) {
    this.args = args;
  }

  /** Removes {@code --name} and reports whether it was there. */
  boolean flag(String name) {
    return args.remove("--" + name);
  }

  /** Removes {@code --name value} / {@code --name=value} and returns the value, or null. */
  @Nullable String value(String name) {
    String option = "--" + name;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals(option)) {
        if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
          throw usage(option + " needs a value");
        }
        args.remove(i);
        return args.remove(i);
      }
      if (a.startsWith(option + "=")) {
        args.remove(i);
        return a.substring(option.length() + 1);
      }
    }
    return null;
  }

  /** Removes and returns the first argument that is not an option, or null. */
  @Nullable String positional() {
    for (int i = 0; i < args.size(); i++) {
      if (!args.get(i).startsWith("--")) {
        return args.remove(i);
      }
    }
    return null;
  }

  /** A positive duration, as {@link DurationOption} defines it. */
  Duration duration(String option, String text) {
    return DurationOption.parse(option, text);
  }

  /**
   * A moment: an ISO-8601 instant ({@code 2026-12-02T10:00:00Z}) or a duration ago ({@code 2h}), a
   * duration as {@link DurationOption} defines it.
   */
  Instant since(String option, String text, Instant now) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      if (!DurationOption.hasForm(text)) {
        throw usage(
            "--"
                + option
                + " '"
                + text
                + "' is not a duration ago ("
                + DurationOption.FORMS
                + ") nor an instant (2026-12-02T10:00:00Z)");
      }
      return now.minus(DurationOption.parse(option, text));
    }
  }

  /** Nothing but Spring-style options may be left. */
  void done() {
    ReaperCli.checkOptions(args);
  }

  List<String> rest() {
    return args;
  }

  ReaperCli.UsageException usage(String message) {
    return new ReaperCli.UsageException(message);
  }
}
