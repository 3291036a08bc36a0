package pin.messenger.reaper.store;

import java.util.Arrays;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** Every action an operator takes, as the audit trail's {@code action} column spells it. */
public enum OperatorAction {
  PAUSE("pause"),
  RESUME("resume"),
  RETRY("retry"),
  REQUEUE_KAFKA_QUARANTINED("requeue-kafka-quarantined"),
  REQUEUE_RECORDER_GIVEN_UP("requeue-recorder-given-up"),
  END("end");

  private final String label;

  OperatorAction(String label) {
    this.label = label;
  }

  /** The name in the audit trail, the logs and the command's output. */
  public String label() {
    return label;
  }

  @Override
  public String toString() {
    return label;
  }

  /** The action spelled {@code label}, or null. */
  public static @Nullable OperatorAction byLabel(String label) {
    for (OperatorAction a : values()) {
      if (a.label.equals(label)) {
        return a;
      }
    }
    return null;
  }

  /** Every label, in order, comma-separated: for a message that names the choices. */
  public static String labels() {
    return Arrays.stream(values()).map(OperatorAction::label).collect(Collectors.joining(", "));
  }
}
