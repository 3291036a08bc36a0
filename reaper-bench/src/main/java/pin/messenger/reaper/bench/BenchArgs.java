package pin.messenger.reaper.bench;

import java.util.List;

/** The bench's numeric options, such as {@code --startup-rounds 3}. */
final class BenchArgs {
  private BenchArgs() {}

  /**
   * The value after {@code name}, else {@code fallback}; a missing or non-numeric value, or one
   * below {@code min}, is an error that names the option.
   */
  static long number(List<String> args, String name, long fallback, long min) {
    int at = args.indexOf(name);
    if (at < 0) {
      return fallback;
    }
    String value = at + 1 < args.size() ? args.get(at + 1) : "";
    try {
      long n = Long.parseLong(value);
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException(
        name + " needs a whole number of at least " + min + ", got '" + value + "'");
  }
}
