package pin.messenger.reaper.app.metrics;

import static pin.messenger.reaper.app.metrics.SnapshotGauges.age;
import static pin.messenger.reaper.app.metrics.SnapshotGauges.gauge;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import pin.messenger.reaper.delivery.Delivery;
import pin.messenger.reaper.delivery.DeliveryObserver;
import pin.messenger.reaper.store.Diagnostics;

/**
 * The meters of delivery after commit: what the Kafka relay published, refused and quarantined,
 * what the recorder-stop dispatcher delivered and gave up, whether the broker is reachable, lost
 * leases, and the outbox and recorder tables from the last {@link DatabaseGauges} snapshot. All
 * registered at start-up; the table gauges are NaN where this process does not deliver.
 */
public final class DeliveryMeters implements DeliveryObserver {
  public static final String OUTBOX_PENDING = "messenger.conf.reaper.outbox.pending";
  public static final String OUTBOX_OLDEST_AGE = "messenger.conf.reaper.outbox.oldest.pending.age";
  public static final String OUTBOX_PUBLISHED = "messenger.conf.reaper.outbox.published";
  public static final String OUTBOX_FAILURES = "messenger.conf.reaper.outbox.failures";
  public static final String OUTBOX_QUARANTINED = "messenger.conf.reaper.outbox.quarantined";
  public static final String OUTBOX_QUARANTINED_ROWS =
      "messenger.conf.reaper.outbox.quarantined.rows";
  public static final String RECORDER_PENDING = "messenger.conf.reaper.recorder.stop.pending";
  public static final String RECORDER_DELIVERED = "messenger.conf.reaper.recorder.stop.delivered";
  public static final String RECORDER_FAILURES = "messenger.conf.reaper.recorder.stop.failures";
  public static final String RECORDER_GAVE_UP = "messenger.conf.reaper.recorder.stop.gave.up";
  public static final String RECORDER_GAVE_UP_ROWS =
      "messenger.conf.reaper.recorder.stop.gave.up.rows";
  public static final String RECORDER_OLDEST_AGE =
      "messenger.conf.reaper.recorder.stop.oldest.pending.age";
  public static final String RELAY_ENABLED = "messenger.conf.reaper.relay.enabled";
  public static final String RECORDER_ENABLED = "messenger.conf.reaper.recorder.enabled";
  public static final String BROKER_UP = "messenger.conf.reaper.broker.up";
  public static final String DELIVERY_LEASE_LOST = "messenger.conf.reaper.delivery.lease.lost";

  private final Counter published;
  private final Counter outboxFailures;
  private final Counter quarantined;
  private final Counter recorderDelivered;
  private final Counter recorderFailures;
  private final Counter recorderGaveUp;
  private final Map<String, Counter> leaseLost = new HashMap<>();
  private volatile double brokerUp = Double.NaN;

  public DeliveryMeters(
      MeterRegistry registry, DatabaseGauges database, Delivery delivery, Clock clock) {
    // Registered at start-up, so dashboards show zero rather than nothing.
    published =
        Counter.builder(OUTBOX_PUBLISHED)
            .description("Outbox rows the broker acknowledged")
            .register(registry);
    outboxFailures =
        Counter.builder(OUTBOX_FAILURES)
            .description("Outbox sends that failed (refused or broker unreachable)")
            .register(registry);
    quarantined =
        Counter.builder(OUTBOX_QUARANTINED)
            .description("Outbox rows quarantined (the broker will never take them)")
            .register(registry);
    recorderDelivered =
        Counter.builder(RECORDER_DELIVERED)
            .description("Recorder stop requests delivered (or already stopped)")
            .register(registry);
    recorderFailures =
        Counter.builder(RECORDER_FAILURES)
            .description("Recorder stop calls that failed")
            .register(registry);
    recorderGaveUp =
        Counter.builder(RECORDER_GAVE_UP)
            .description(
                "Recorder stop requests given up (after max attempts, or at once when refused for good)")
            .register(registry);
    tableGauges(registry, database, delivery, clock);
    Gauge.builder(RELAY_ENABLED, () -> delivery.relay() == null ? 0 : 1)
        .description("1 when this process publishes the outbox to Kafka")
        .register(registry);
    Gauge.builder(RECORDER_ENABLED, () -> delivery.recorder() == null ? 0 : 1)
        .description("1 when this process delivers recorder stop requests")
        .register(registry);
    Gauge.builder(BROKER_UP, () -> brokerUp)
        .description(
            "1 when the relay's last step reached the Kafka broker, 0 while it cannot (NaN: relay off"
                + " or no step yet)")
        .register(registry);
    for (String d : List.of("relay", "recorder")) {
      leaseLost.put(
          d,
          Counter.builder(DELIVERY_LEASE_LOST)
              .description(
                  "Delivered rows whose lease another instance had taken over (a step outlived its"
                      + " lease); their outcome was not written")
              .tag("delivery", d)
              .register(registry));
    }
  }

  private static void tableGauges(
      MeterRegistry registry, DatabaseGauges database, Delivery delivery, Clock clock) {
    Supplier<Diagnostics.DeliveryBacklog> state = SnapshotGauges.tables(database);
    // Only where this process delivers: a worker that is not meant to relay reports no outbox
    // figures (NaN), so the outbox alerts fire on the relaying instances only.
    boolean relaying = delivery.relay() != null;
    boolean dispatching = delivery.recorder() != null;
    gauge(
        registry,
        OUTBOX_PENDING,
        "Outbox rows waiting to be published (NaN where the relay is off)",
        null,
        relaying,
        state,
        t -> t.outboxPending());
    gauge(
        registry,
        OUTBOX_OLDEST_AGE,
        "Age of the oldest unpublished outbox row (0: none; NaN where the relay is off)",
        "seconds",
        relaying,
        state,
        t -> age(clock, t.outboxOldest()));
    gauge(
        registry,
        OUTBOX_QUARANTINED_ROWS,
        "Outbox rows in quarantine now (NaN where the relay is off)",
        null,
        relaying,
        state,
        t -> t.outboxQuarantined());
    gauge(
        registry,
        RECORDER_PENDING,
        "Recorder stop requests waiting for delivery (NaN where the dispatcher is off)",
        null,
        dispatching,
        state,
        t -> t.recorderPending());
    gauge(
        registry,
        RECORDER_OLDEST_AGE,
        "Age of the oldest undelivered recorder stop request (0: none; NaN where the dispatcher"
            + " is off)",
        "seconds",
        dispatching,
        state,
        t -> age(clock, t.recorderOldest()));
    gauge(
        registry,
        RECORDER_GAVE_UP_ROWS,
        "Recorder stop requests given up, now (NaN where the dispatcher is off)",
        null,
        dispatching,
        state,
        t -> t.recorderGaveUp());
  }

  @Override
  public void relayed(int publishedNow, int refused, int quarantinedNow, int unavailable) {
    published.increment(publishedNow);
    outboxFailures.increment(refused + unavailable);
    quarantined.increment(quarantinedNow);
  }

  @Override
  public void recorderDispatched(int delivered, int failed, int gaveUp) {
    recorderDelivered.increment(delivered);
    recorderFailures.increment(failed);
    recorderGaveUp.increment(gaveUp);
  }

  @Override
  public void leaseLost(String delivery, int rows) {
    Counter c = leaseLost.get(delivery);
    if (c != null) {
      c.increment(rows);
    }
  }

  @Override
  public void brokerReachable(boolean up) {
    brokerUp = up ? 1 : 0;
  }
}
