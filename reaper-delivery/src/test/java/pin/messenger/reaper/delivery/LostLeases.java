package pin.messenger.reaper.delivery;

import java.util.Map;

/**
 * Counts lost leases per delivery: the observer of the lease-lost tests of the relay and of the
 * recorder-stop dispatcher.
 */
final class LostLeases implements DeliveryObserver {
  final Map<String, Integer> rows = new java.util.concurrent.ConcurrentHashMap<>();

  @Override
  public void leaseLost(String delivery, int n) {
    rows.merge(delivery, n, Integer::sum);
  }
}
