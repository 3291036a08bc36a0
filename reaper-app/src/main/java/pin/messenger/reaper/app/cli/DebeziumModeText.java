package pin.messenger.reaper.app.cli;

import pin.messenger.reaper.store.DebeziumOutboxRows;
import pin.messenger.reaper.store.Diagnostics;
import pin.messenger.reaper.store.OutboxOptions;

/**
 * What {@code status} and {@code explain} say about the integration outbox under {@code
 * reaper.outbox.mode=debezium}: the platform's connector publishes from the write-ahead log, so
 * there is no relay backlog in a table to count; what is left in the relay's table is named as such
 * (written before the switch, and published by nobody while the mode stays debezium).
 */
final class DebeziumModeText {
  private DebeziumModeText() {}

  /** The {@code kafka outbox} line of {@code status} in debezium mode. */
  static String statusLine(Diagnostics.DeliveryBacklog d) {
    StringBuilder b =
        new StringBuilder(
            String.format(
                "%-26s %8s  published by Debezium from the WAL of %s"
                    + " (reaper.outbox.mode=debezium): its backlog is the replication slot's lag%n",
                "kafka outbox", "-", DebeziumOutboxRows.TABLE));
    if (d.outboxPending() > 0) {
      b.append(
          String.format(
              "%-26s %8s  %s   left in messenger.integration_outbox from relay mode: no relay"
                  + " publishes them in this mode%n",
              "  relay rows", d.outboxPending(), d.outboxOldest()));
    }
    return b.toString();
  }

  /** The note under {@code explain}'s outbox section; empty in relay mode. */
  static String explainNote(OutboxOptions outbox) {
    return outbox.relays()
        ? ""
        : "  (reaper.outbox.mode=debezium: the event's row in "
            + DebeziumOutboxRows.TABLE
            + " is deleted in the transaction that wrote it; the connector reads it from the WAL,"
            + " and the record on the topic is its trace)\n";
  }
}
