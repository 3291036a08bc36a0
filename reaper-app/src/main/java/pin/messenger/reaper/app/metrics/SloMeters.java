package pin.messenger.reaper.app.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ClockReading;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.Schedule;
import pin.messenger.reaper.core.Transition;

/**
 * The spec's SLO as meters: how late each close was ({@code close_lateness}), whether it met the
 * SLO ({@code slo_closes}), and the clock skew the lateness is corrected by ({@code clock_skew}).
 * Lateness is measured on the database's clock, as well as this worker knows it. Registered at
 * start-up.
 */
public final class SloMeters implements ReaperObserver {
  public static final String CLOSE_LATENESS = "messenger.conf.reaper.close.lateness";
  public static final String SLO_CLOSES = "messenger.conf.reaper.slo.closes";
  public static final String CLOCK_SKEW = "messenger.conf.reaper.clock.skew";
  public static final String NEXT_DUE_SLO_CLOSES = "messenger.conf.reaper.slo.next.due.closes";

  private static final String SLO =
      "Closes by whether they met the spec's SLO (closed within the window + one polling"
          + " interval)";
  private static final String NEXT_DUE =
      "Closes by whether they met the next-due schedule's objective (closed within the window"
          + " + 1 s); counted only under reaper.schedule=next-due";

  /**
   * The next-due schedule's own objective: a room is closed within its window plus this (the
   * coalescing delay, 200 ms by default, and the cycle's work fit well inside it).
   */
  static final Duration NEXT_DUE_OBJECTIVE = Duration.ofSeconds(1);

  /**
   * Buckets of close lateness (seconds past the due moment at commit): the SLO threshold is the
   * polling interval, added to these at start-up so the histogram resolves it exactly.
   */
  static final Duration[] LATENESS_BUCKETS = {
    Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
    Duration.ofSeconds(10), Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofSeconds(45),
    Duration.ofSeconds(60), Duration.ofSeconds(90), Duration.ofMinutes(2), Duration.ofMinutes(5),
    Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofHours(1)
  };

  private final Map<Phase, Timer> lateness = new EnumMap<>(Phase.class);
  private final Map<Phase, Counter> withinSlo = new EnumMap<>(Phase.class);
  private final Map<Phase, Counter> lateForSlo = new EnumMap<>(Phase.class);
  private final Map<Phase, Counter> withinNextDue = new EnumMap<>(Phase.class);
  private final Map<Phase, Counter> lateForNextDue = new EnumMap<>(Phase.class);
  private final ConferenceRoomReaperOptions options;
  private final Clock clock;
  private volatile @Nullable ClockReading lastClockReading;

  public SloMeters(MeterRegistry registry, ConferenceRoomReaperOptions options, Clock clock) {
    this.options = options;
    this.clock = clock;
    Duration[] latenessBuckets = Arrays.copyOf(LATENESS_BUCKETS, LATENESS_BUCKETS.length + 1);
    latenessBuckets[LATENESS_BUCKETS.length] = options.pollingInterval();
    for (Phase phase : Phase.values()) {
      lateness.put(
          phase,
          Timer.builder(CLOSE_LATENESS)
              .description(
                  "How long after its due moment (window passed) a conference was closed, at commit")
              .tag("phase", phase.label())
              .tag("schedule", options.schedule().label())
              .serviceLevelObjectives(latenessBuckets)
              .register(registry));
      withinSlo.put(phase, closes(registry, SLO_CLOSES, SLO, phase, "within"));
      lateForSlo.put(phase, closes(registry, SLO_CLOSES, SLO, phase, "late"));
      withinNextDue.put(phase, closes(registry, NEXT_DUE_SLO_CLOSES, NEXT_DUE, phase, "within"));
      lateForNextDue.put(phase, closes(registry, NEXT_DUE_SLO_CLOSES, NEXT_DUE, phase, "late"));
    }
    Gauge.builder(
            CLOCK_SKEW,
            () -> {
              ClockReading r = lastClockReading;
              return r == null ? Double.NaN : r.skew().toNanos() / 1e9;
            })
        .description(
            "Database clock minus this worker's clock, measured at the start of every cycle"
                + " (positive: the worker is behind; NaN: not measured yet)")
        .baseUnit("seconds")
        .register(registry);
  }

  private static Counter closes(
      MeterRegistry registry, String name, String description, Phase phase, String result) {
    return Counter.builder(name)
        .description(description)
        .tag("phase", phase.label())
        .tag("result", result)
        .register(registry);
  }

  @Override
  public void clockRead(ClockReading reading) {
    lastClockReading = reading;
  }

  /**
   * The SLO of the spec: a room is closed within its window plus one polling interval. Lateness is
   * measured at commit (this is called right after it) from the moment the window passed.
   */
  @Override
  public void conferenceReaped(String jobRunId, Transition transition) {
    Phase phase = transition.phase();
    Instant asOf = transition.endedAt();
    Duration window = Duration.between(phase.cutoff(asOf, options), asOf);
    Instant due = phase.orderKey(transition.session()).plus(window);
    Duration late = Duration.between(due, databaseNow());
    if (late.isNegative()) {
      late = Duration.ZERO;
    }
    Objects.requireNonNull(lateness.get(phase)).record(late);
    Map<Phase, Counter> verdict =
        late.compareTo(options.pollingInterval()) <= 0 ? withinSlo : lateForSlo;
    Objects.requireNonNull(verdict.get(phase)).increment();
    if (options.schedule() == Schedule.NEXT_DUE) {
      Map<Phase, Counter> tight =
          late.compareTo(NEXT_DUE_OBJECTIVE) <= 0 ? withinNextDue : lateForNextDue;
      Objects.requireNonNull(tight.get(phase)).increment();
    }
  }

  /**
   * Now on the database's clock, as well as this worker knows it: its own clock corrected by the
   * last measured skew. The rows' timestamps are the database's (or the messenger's), so lateness
   * measured on the worker's clock would be off by the skew: a worker ahead would count every close
   * late (a false SLO burn), one behind would count its late closes as on time.
   */
  private Instant databaseNow() {
    ClockReading r = lastClockReading;
    Instant now = clock.instant();
    return r == null ? now : now.plus(r.skew());
  }
}
