package pin.messenger.reaper.schema;

/**
 * The tables the reaper delivers from after commit, as its migrations define them, and the one
 * definition of a <em>pending</em> row: neither done nor given up. That is also the predicate of
 * each table's partial index ({@code ix_integration_outbox_pending}, {@code
 * ix_recorder_stop_requests_pending}; {@code DeliveryTablesTest} checks they agree), so every query
 * that says "pending" this way can use the index. The relay's claim, the status document and the
 * gauges all build their SQL from here.
 */
public final class DeliveryTables {

  /**
   * A delivery table: a row waits until its {@code doneColumn} is set (delivered) or its {@code
   * gaveUpColumn} is (it will not be tried again).
   *
   * @param name the qualified table name
   * @param doneColumn set when the row was delivered
   * @param gaveUpColumn set when the row will not be tried again
   */
  public record Table(String name, String doneColumn, String gaveUpColumn) {

    /** Pending rows, over the table's own columns (no alias). */
    public String pending() {
      return doneColumn + " IS NULL AND " + gaveUpColumn + " IS NULL";
    }

    /** Pending rows, over the alias {@code alias} of the table. */
    public String pending(String alias) {
      return alias + "." + doneColumn + " IS NULL AND " + alias + "." + gaveUpColumn + " IS NULL";
    }
  }

  /** The integration events for Kafka: published, or quarantined after max-attempts. */
  public static final Table INTEGRATION_OUTBOX =
      new Table("messenger.integration_outbox", "published_at", "quarantined_at");

  /** The media stack's recorder stop requests: delivered, or given up. */
  public static final Table RECORDER_STOP_REQUESTS =
      new Table("messenger.recorder_stop_requests", "delivered_at", "gave_up_at");

  private DeliveryTables() {}
}
