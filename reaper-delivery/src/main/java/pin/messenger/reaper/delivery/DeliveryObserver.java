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
}
