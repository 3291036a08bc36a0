package pin.messenger.reaper.core;

import java.util.List;

/**
 * Thrown when the reaper's options are invalid; the message lists every violation with property and
 * value.
 */
public final class InvalidOptionsException extends IllegalArgumentException {
  private final List<String> violations;

  public InvalidOptionsException(List<String> violations) {
    super("Invalid conference-room-reaper configuration: " + String.join("; ", violations));
    this.violations = List.copyOf(violations);
  }

  public List<String> violations() {
    return violations;
  }
}
