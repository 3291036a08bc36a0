package pin.messenger.reaper.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.BatchOutcome;
import pin.messenger.reaper.core.ClockReading;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.Transition;
import pin.messenger.reaper.delivery.DeliveryObserver;

/**
 * The worker's Micrometer meters, exposed in Prometheus form as the spec names them ({@code
 * messenger_conf_reaper_*}). All are registered at start-up so dashboards show zeros, not gaps.
 * Gauges that need the database read the last snapshot of {@link DatabaseGauges}, refreshed off the
 * scrape path: a scrape never waits on the database.
 */
public final class ReaperMeters implements ReaperObserver, DeliveryObserver {

  public static final String RUN = "messenger.conf.reaper.run";
  public static final String CYCLE_DURATION = "messenger.conf.reaper.cycle.duration";
  public static final String ITEMS = "messenger.conf.reaper.items";
  public static final String ACTIVE_BACKLOG = "messenger.conf.reaper.active.backlog";
  public static final String PHASE_BACKLOG = "messenger.conf.reaper.phase.backlog";
  public static final String PHASE_OLDEST_DUE_AGE = "messenger.conf.reaper.phase.oldest.due.age";
  public static final String SKIP_LOCKED = "messenger.conf.reaper.skip.locked";
  public static final String ERRORS = "messenger.conf.reaper.errors";
  public static final String LOCK_HELD = "messenger.conf.reaper.lock.held";
  public static final String LAST_CYCLE = "messenger.conf.reaper.last.cycle.completed";
  public static final String OUTBOX_PENDING = "messenger.conf.reaper.outbox.pending";
  public static final String OUTBOX_OLDEST_AGE = "messenger.conf.reaper.outbox.oldest.pending.age";
  public static final String OUTBOX_PUBLISHED = "messenger.conf.reaper.outbox.published";
  public static final String OUTBOX_FAILURES = "messenger.conf.reaper.outbox.failures";
  public static final String OUTBOX_QUARANTINED = "messenger.conf.reaper.outbox.quarantined";
  public static final String RECORDER_PENDING = "messenger.conf.reaper.recorder.stop.pending";
  public static final String RECORDER_DELIVERED = "messenger.conf.reaper.recorder.stop.delivered";
  public static final String RECORDER_FAILURES = "messenger.conf.reaper.recorder.stop.failures";
  public static final String RECORDER_GAVE_UP = "messenger.conf.reaper.recorder.stop.gave.up";
  public static final String RECORDER_OLDEST_AGE =
      "messenger.conf.reaper.recorder.stop.oldest.pending.age";
  public static final String ENABLED = "messenger.conf.reaper.enabled";
  public static final String RELAY_ENABLED = "messenger.conf.reaper.relay.enabled";
  public static final String RECORDER_ENABLED = "messenger.conf.reaper.recorder.enabled";
  public static final String POISON_ROWS = "messenger.conf.reaper.poison.rows";
  public static final String OUTBOX_QUARANTINED_ROWS =
      "messenger.conf.reaper.outbox.quarantined.rows";
  public static final String RECORDER_GAVE_UP_ROWS =
      "messenger.conf.reaper.recorder.stop.gave.up.rows";
  public static final String GAUGES_AGE = "messenger.conf.reaper.gauges.age";
  public static final String DATABASE_UP = "messenger.conf.reaper.database.up";
  public static final String CLOSE_LATENESS = "messenger.conf.reaper.close.lateness";
  public static final String SLO_CLOSES = "messenger.conf.reaper.slo.closes";
  public static final String CLOCK_SKEW = "messenger.conf.reaper.clock.skew";
  public static final String BROKER_UP = "messenger.conf.reaper.broker.up";
  public static final String DELIVERY_LEASE_LOST = "messenger.conf.reaper.delivery.lease.lost";

  /**
   * Buckets that resolve a cycle from 5 ms to 30 s (the spec's target is < 5 s, the hard limit 30
   * s).
   */
  static final Duration[] CYCLE_BUCKETS = {
    Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
    Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
    Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)
  };

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

  private final Counter runs;
  private final Timer cycleDuration;
  private final Map<Phase, Counter> items = new EnumMap<>(Phase.class);
  private final Counter skipLocked;
  private final Counter itemErrors;
  private final Counter cycleErrors;
  private final Counter lockHeld;
  private final Counter published;
  private final Counter outboxFailures;
  private final Counter quarantined;
  private final Counter recorderDelivered;
  private final Counter recorderFailures;
  private final Counter recorderGaveUp;
  private final Map<Phase, Timer> lateness = new EnumMap<>(Phase.class);
  private final Map<Phase, Counter> withinSlo = new EnumMap<>(Phase.class);
  private final Map<Phase, Counter> lateForSlo = new EnumMap<>(Phase.class);
  private final ConferenceRoomReaperOptions options;
  private final Clock clock;
  private volatile @Nullable Instant lastCycleCompleted;
  private volatile @Nullable Instant lastCycleStarted;
  private volatile @Nullable ClockReading lastClockReading;
  private final Map<String, Counter> leaseLost = new java.util.HashMap<>();
  private volatile double brokerUp = Double.NaN;

  public ReaperMeters(
      MeterRegistry registry,
      DatabaseGauges database,
      ConferenceRoomReaperOptions options,
      Delivery delivery,
      Clock clock) {
    // Plain field assignments: `duplicates` pairs them with other constructors of the same shape.
    this.options = options;
    this.clock = clock;
    // One builder chain per meter on purpose (registered at start-up, style 11): each name reads
    // with its own description and tags at the place it is registered.
    runs = Counter.builder(RUN).description("Cycles run (liveness)").register(registry);
    cycleDuration =
        Timer.builder(CYCLE_DURATION)
            .description("Duration of one cycle, lock included")
            .serviceLevelObjectives(CYCLE_BUCKETS)
            .register(registry);
    for (Phase phase : Phase.values()) {
      items.put(
          phase,
          Counter.builder(ITEMS)
              .description("Conferences closed, by outcome")
              .tag("outcome", phase.outcome())
              .register(registry));
    }
    skipLocked =
        Counter.builder(SKIP_LOCKED)
            .description("Due rows passed over because another transaction held them")
            .register(registry);
    itemErrors =
        Counter.builder(ERRORS)
            .description("Poison rows and failed cycles")
            .tag("kind", "item")
            .register(registry);
    cycleErrors =
        Counter.builder(ERRORS)
            .description("Poison rows and failed cycles")
            .tag("kind", "cycle")
            .register(registry);
    lockHeld =
        Counter.builder(LOCK_HELD)
            .description("Cycles skipped because another runner held the run lock")
            .register(registry);
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
            .description("Recorder stop requests given up after max attempts")
            .register(registry);

    Duration[] latenessBuckets =
        java.util.Arrays.copyOf(LATENESS_BUCKETS, LATENESS_BUCKETS.length + 1);
    latenessBuckets[LATENESS_BUCKETS.length] = options.pollingInterval();
    for (Phase phase : Phase.values()) {
      lateness.put(
          phase,
          Timer.builder(CLOSE_LATENESS)
              .description(
                  "How long after its due moment (window passed) a conference was closed, at commit")
              .tag("phase", phase.label())
              .serviceLevelObjectives(latenessBuckets)
              .register(registry));
      withinSlo.put(phase, sloCounter(registry, phase, "within"));
      lateForSlo.put(phase, sloCounter(registry, phase, "late"));
    }

    Supplier<Backlog> backlog = () -> database.last() == null ? null : database.last().backlog();
    Gauge.builder(ACTIVE_BACKLOG, () -> backlog.get() == null ? Double.NaN : backlog.get().total())
        .description("Active conferences past their window (all phases, each row once)")
        .register(registry);
    for (Phase phase : Phase.values()) {
      Gauge.builder(
              PHASE_BACKLOG,
              () -> backlog.get() == null ? Double.NaN : backlog.get().phase(phase).due())
          .description("Conferences past their window, per phase")
          .tag("phase", phase.label())
          .register(registry);
      Gauge.builder(
              PHASE_OLDEST_DUE_AGE,
              () ->
                  backlog.get() == null
                      ? Double.NaN
                      : age(clock, backlog.get().phase(phase).oldestDueSince()))
          .description("How long the oldest due conference of the phase has been due")
          .tag("phase", phase.label())
          .baseUnit("seconds")
          .register(registry);
    }
    Gauge.builder(
            LAST_CYCLE, () -> lastCycleCompleted == null ? 0 : lastCycleCompleted.getEpochSecond())
        .description("Unix time of the last completed cycle (0: none yet)")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(GAUGES_AGE, database::ageSeconds)
        .description(
            "Age of the database reading behind the backlog, outbox and poison gauges (NaN: none yet)")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(
            DATABASE_UP,
            () -> database.probe() == null ? Double.NaN : database.probe().up() ? 1 : 0)
        .description("1 when the last background read of the database succeeded")
        .register(registry);

    Supplier<DatabaseGauges.TableState> state =
        () -> database.last() == null ? null : database.last().tables();
    // The delivery gauges only where this process delivers: a worker that is not meant to relay
    // reports no outbox figures (NaN), so the outbox alerts fire on the relaying instances only.
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
    gauge(
        registry,
        POISON_ROWS,
        "Live conferences whose last close failed (poison rows), now",
        null,
        true,
        state,
        t -> t.poison());
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
    Gauge.builder(ENABLED, () -> options.enabled() ? 1 : 0)
        .description(
            "1 when reaping is enabled (reaper.enabled, the CONFERENCE_CALLS_ENABLED flag)")
        .register(registry);
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

  private static Counter sloCounter(MeterRegistry registry, Phase phase, String result) {
    return Counter.builder(SLO_CLOSES)
        .description(
            "Closes by whether they met the spec's SLO (closed within the window + one polling"
                + " interval)")
        .tag("phase", phase.label())
        .tag("result", result)
        .register(registry);
  }

  private static void gauge(
      MeterRegistry registry,
      String name,
      String help,
      @Nullable String unit,
      boolean applies,
      Supplier<DatabaseGauges.TableState> state,
      java.util.function.ToDoubleFunction<DatabaseGauges.TableState> value) {
    Supplier<Number> read =
        () -> {
          DatabaseGauges.TableState t = state.get();
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

  private static double age(Clock clock, @Nullable Instant since) {
    return since == null
        ? 0
        : Math.max(0, Duration.between(since, clock.instant()).toMillis() / 1000.0);
  }

  @Override
  public void cycleStarted(String jobRunId, Instant asOf) {
    lastCycleStarted = clock.instant();
  }

  @Override
  public void clockRead(ClockReading reading) {
    lastClockReading = reading;
  }

  @Override
  public void cycleCompleted(CycleResult result) {
    runs.increment();
    if (result.lockAcquired()) {
      // Only cycles that did the work: skipped ones (lock held elsewhere) would drag the quantiles
      // to zero.
      cycleDuration.record(result.durationMs(), TimeUnit.MILLISECONDS);
    } else {
      lockHeld.increment();
    }
    lastCycleCompleted = result.asOf().plusMillis(result.durationMs());
  }

  public @Nullable Instant lastCycleCompleted() {
    return lastCycleCompleted;
  }

  /** When the loop last started a cycle (null: none yet), for liveness. */
  public @Nullable Instant lastCycleStarted() {
    return lastCycleStarted;
  }

  @Override
  public void cycleFailed(String jobRunId, Throwable error) {
    // A cycle that failed was started: with reaper.clock=database one that cannot read the
    // database's clock fails before it reports a start, and a database outage must not turn
    // liveness DOWN.
    lastCycleStarted = clock.instant();
    runs.increment();
    cycleErrors.increment();
  }

  @Override
  public void batchCommitted(Phase phase, BatchOutcome outcome) {
    Objects.requireNonNull(items.get(phase)).increment(outcome.closed());
    skipLocked.increment(outcome.skippedLocked());
  }

  @Override
  public void itemFailed(String jobRunId, Phase phase, UUID conferenceId, String error) {
    itemErrors.increment();
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
