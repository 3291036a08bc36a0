package pin.messenger.reaper.store;

import java.util.Locale;
import pin.messenger.reaper.core.InvalidOptionsException;

/**
 * Options of the integration outbox ({@code reaper.outbox.*}): who publishes the conference-ended
 * events the transition writes.
 *
 * @param mode {@code relay} (the default): the row goes to {@code messenger.integration_outbox} and
 *     the worker's own relay publishes it; {@code debezium}: the row goes to {@code
 *     messenger.integration_outbox_debezium} in the layout Debezium's outbox event router reads,
 *     and the platform's Kafka Connect publishes it from the write-ahead log (ops/kafka-connect/);
 *     the worker's relay is off
 */
public record OutboxOptions(Mode mode) {

  /** Who publishes the integration events. */
  public enum Mode {
    /** The worker's polling relay, from {@code messenger.integration_outbox}. */
    RELAY,
    /** Debezium's outbox event router, from the WAL of {@code integration_outbox_debezium}. */
    DEBEZIUM;

    /** The value as a user sets it: {@code relay}, {@code debezium}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public OutboxOptions {
    if (mode == null) {
      throw new InvalidOptionsException(
          java.util.List.of("reaper.outbox.mode must be relay or debezium but was null"));
    }
  }

  public static OutboxOptions defaults() {
    return new OutboxOptions(Mode.RELAY);
  }

  /** Whether the worker's own relay publishes the integration events. */
  public boolean relays() {
    return mode == Mode.RELAY;
  }
}
