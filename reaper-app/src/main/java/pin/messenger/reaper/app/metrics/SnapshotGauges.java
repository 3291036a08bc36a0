package pin.messenger.reaper.app.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.store.Diagnostics;

/**
 * Gauges over the last {@link DatabaseGauges} snapshot of the tables, shared by {@link
 * ReaperMeters} (poison rows) and {@link DeliveryMeters} (outbox, recorder): NaN until the database
 * was read once, or where the figure does not apply to this process.
 */
final class SnapshotGauges {
  private SnapshotGauges() {}

  /** The last table state, null before the first successful read. */
  static Supplier<Diagnostics.DeliveryBacklog> tables(DatabaseGauges database) {
    return () -> database.last() == null ? null : database.last().tables();
  }

  static void gauge(
      MeterRegistry registry,
      String name,
      String help,
      @Nullable String unit,
      boolean applies,
      Supplier<Diagnostics.DeliveryBacklog> state,
      ToDoubleFunction<Diagnostics.DeliveryBacklog> value) {
    Supplier<Number> read =
        () -> {
          Diagnostics.DeliveryBacklog t = state.get();
          return !applies || t == null ? Double.NaN : value.applyAsDouble(t);
        };
    Gauge.Builder<Supplier<Number>> b =
        Gauge.builder(name, read)
            .description(help + " (NaN until the database was read once; then its last value)");
    if (unit != null) {
      b.baseUnit(unit);
    }
    b.register(registry);
  }

  /** Seconds since {@code since} on {@code clock}, 0 when there is none (nothing waiting). */
  static double age(Clock clock, @Nullable Instant since) {
    return since == null
        ? 0
        : Math.max(0, Duration.between(since, clock.instant()).toMillis() / 1000.0);
  }
}
