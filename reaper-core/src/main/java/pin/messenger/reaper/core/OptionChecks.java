package pin.messenger.reaper.core;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The checks the options records share, each adding a violation that names the property and the
 * value it had. The records collect every violation and throw them together with {@link
 * #throwIfAny}.
 */
public final class OptionChecks {
  /** PostgreSQL timeouts are whole milliseconds; anything shorter would be read as "no timeout". */
  private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);

  private OptionChecks() {}

  public static boolean isPositive(@Nullable Duration d) {
    return d != null && !d.isNegative() && !d.isZero();
  }

  /** Required and at least 1 ms (a timeout the server can enforce). */
  public static void atLeastOneMilli(
      List<String> errors, String property, @Nullable Duration value) {
    if (value == null) {
      errors.add(property + " is required but was null");
    } else if (value.compareTo(MIN_TIMEOUT) < 0) {
      errors.add(property + " must be at least 1ms but was " + value);
    }
  }

  /** Required and above zero. */
  public static void positive(List<String> errors, String property, @Nullable Duration value) {
    if (!isPositive(value)) {
      errors.add(property + " must be positive but was " + value);
    }
  }

  public static void notNegative(List<String> errors, String property, @Nullable Duration value) {
    if (value == null) {
      errors.add(property + " is required but was null");
    } else if (value.isNegative()) {
      errors.add(property + " must be zero or positive but was " + value);
    }
  }

  /**
   * When both are positive (else the positivity checks name them), {@code value} must be below
   * {@code bound}.
   */
  public static void shorter(
      List<String> errors,
      String property,
      @Nullable Duration value,
      String boundProperty,
      @Nullable Duration bound) {
    if (value != null
        && bound != null
        && isPositive(value)
        && isPositive(bound)
        && value.compareTo(bound) >= 0) {
      errors.add(
          property
              + " must be shorter than "
              + boundProperty
              + " ("
              + bound
              + ") but was "
              + value);
    }
  }

  /** Retries must not wait less at the cap than at the start. */
  public static void capNotBelowBase(
      List<String> errors,
      String capProperty,
      @Nullable Duration cap,
      String baseProperty,
      @Nullable Duration base) {
    if (base != null && cap != null && cap.compareTo(base) < 0) {
      errors.add(
          capProperty + " must be at least " + baseProperty + " (" + base + ") but was " + cap);
    }
  }

  public static void throwIfAny(List<String> errors) {
    if (!errors.isEmpty()) {
      throw new InvalidOptionsException(errors);
    }
  }
}
