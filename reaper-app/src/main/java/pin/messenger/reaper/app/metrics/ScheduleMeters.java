package pin.messenger.reaper.app.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.Wakeup;

/**
 * The schedule as an operator sees it: {@code messenger_conf_reaper_next_wakeup_seconds{schedule}},
 * how long until this process starts its next cycle (negative while a cycle runs past it; NaN
 * before the first cycle ended), and {@code messenger_conf_reaper_next_wakeup_reason{reason}}, 1
 * for what it wakes for ({@code tick} or a phase's label), 0 for the others. Registered at
 * start-up; read from memory, never from the database.
 */
public final class ScheduleMeters implements Consumer<Wakeup> {
  public static final String NEXT_WAKEUP = "messenger.conf.reaper.next.wakeup";
  public static final String NEXT_WAKEUP_REASON = "messenger.conf.reaper.next.wakeup.reason";

  /** Every value of the reason tag: the tick, then the phases. */
  static final List<String> REASONS = reasons();

  private final Clock clock;
  private volatile @Nullable Wakeup next;

  public ScheduleMeters(MeterRegistry registry, ConferenceRoomReaperOptions options, Clock clock) {
    this.clock = clock;
    Gauge.builder(
            NEXT_WAKEUP,
            () -> {
              Wakeup w = next;
              return w == null
                  ? Double.NaN
                  : Duration.between(this.clock.instant(), w.at()).toNanos() / 1e9;
            })
        .description(
            "Seconds until this worker starts its next cycle (reaper.schedule); NaN before the first"
                + " cycle ended")
        .tag("schedule", options.schedule().label())
        .baseUnit("seconds")
        .register(registry);
    for (String reason : REASONS) {
      Gauge.builder(
              NEXT_WAKEUP_REASON,
              () -> {
                Wakeup w = next;
                return w != null && w.reason().equals(reason) ? 1 : 0;
              })
          .description(
              "1 for what the next cycle wakes for: tick (the polling interval) or the phase whose"
                  + " earliest room falls due first")
          .tag("reason", reason)
          .register(registry);
    }
  }

  @Override
  public void accept(Wakeup wakeup) {
    next = wakeup;
  }

  private static List<String> reasons() {
    List<String> out = new ArrayList<>();
    out.add(Wakeup.TICK);
    for (Phase phase : Phase.values()) {
      out.add(phase.label());
    }
    return List.copyOf(out);
  }
}
