package pin.messenger.reaper.delivery;

/**
 * Port for delivery metrics; the defaults do nothing. Called synchronously: must be cheap and not
 * throw.
 */
public interface DeliveryObserver {
  DeliveryObserver NONE = new DeliveryObserver() {};

  /** One relay step: rows the broker acknowledged, refused, quarantined, and could not reach. */
  default void relayed(int published, int refused, int quarantined, int unavailable) {}

  /** One recorder dispatch step: requests delivered (incl. already stopped), failed, given up. */
  default void recorderDispatched(int delivered, int failed, int gaveUp) {}

  /**
   * Rows whose lease was lost: a step outlived its lease, another instance claimed the rows, and
   * this step's outcome for them was not written. {@code delivery} is {@code relay} or {@code
   * recorder}. Non-zero means the lease is too short for the step (or a process stalled).
   */
  default void leaseLost(String delivery, int rows) {}

  /**
   * The Kafka broker became reachable ({@code true}: a step had records acknowledged or refused) or
   * unreachable ({@code false}); called on each change only.
   */
  default void brokerReachable(boolean up) {}
}
