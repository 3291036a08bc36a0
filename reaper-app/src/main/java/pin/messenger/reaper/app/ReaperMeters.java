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
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.BatchOutcome;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.Transition;
import pin.messenger.reaper.delivery.DeliveryObserver;
import pin.messenger.reaper.store.Diagnostics;

/**
 * The worker's Micrometer meters, exposed in Prometheus form as the spec names them ({@code
 * messenger_conf_reaper_*}). All are registered at start-up so dashboards show zeros, not gaps.
 * Gauges that need the database read it at most every {@link #GAUGE_CACHE} per scrape.
 */
public final class ReaperMeters implements ReaperObserver, DeliveryObserver {
  private static final Logger log = LoggerFactory.getLogger(ReaperMeters.class);

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
  public static final String BROKER_UP = "messenger.conf.reaper.broker.up";
  public static final String DELIVERY_LEASE_LOST = "messenger.conf.reaper.delivery.lease.lost";

  /** One reading of {@link Diagnostics#DELIVERY}. */
  record TableState(
      long outboxPending,
      Instant outboxOldest,
      long outboxQuarantined,
      long recorderPending,
      Instant recorderOldest,
      long recorderGaveUp,
      long poison) {}

  /**
   * Buckets that resolve a cycle from 5 ms to 30 s (the spec's target is < 5 s, the hard limit 30
   * s).
   */
  static final Duration[] CYCLE_BUCKETS = {
    Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
    Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
    Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)
  };

  static final Duration GAUGE_CACHE = Duration.ofSeconds(5);

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
  private volatile Instant lastCycleCompleted;
  private final Map<String, Counter> leaseLost = new java.util.HashMap<>();
  private volatile double brokerUp = Double.NaN;

  public ReaperMeters(
      MeterRegistry registry,
      ReaperStore store,
      javax.sql.DataSource dataSource,
      ConferenceRoomReaperOptions options,
      Delivery delivery,
      Clock clock) {
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

    Supplier<Backlog> backlog = cached(() -> store.backlog(clock.instant(), options));
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
                  age(
                      clock,
                      backlog.get() == null ? null : backlog.get().phase(phase).oldestDueSince()))
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

    Supplier<TableState> state = cached(() -> readTableState(dataSource));
    gauge(
        registry,
        OUTBOX_PENDING,
        "Outbox rows waiting to be published",
        null,
        state,
        t -> t.outboxPending());
    gauge(
        registry,
        OUTBOX_OLDEST_AGE,
        "Age of the oldest unpublished outbox row (0: none)",
        "seconds",
        state,
        t -> age(clock, t.outboxOldest()));
    gauge(
        registry,
        OUTBOX_QUARANTINED_ROWS,
        "Outbox rows in quarantine now",
        null,
        state,
        t -> t.outboxQuarantined());
    gauge(
        registry,
        RECORDER_PENDING,
        "Recorder stop requests waiting for delivery",
        null,
        state,
        t -> t.recorderPending());
    gauge(
        registry,
        RECORDER_OLDEST_AGE,
        "Age of the oldest undelivered recorder stop request (0: none)",
        "seconds",
        state,
        t -> age(clock, t.recorderOldest()));
    gauge(
        registry,
        RECORDER_GAVE_UP_ROWS,
        "Recorder stop requests given up, now",
        null,
        state,
        t -> t.recorderGaveUp());
    gauge(
        registry,
        POISON_ROWS,
        "Live conferences whose last close failed (poison rows), now",
        null,
        state,
        t -> t.poison());
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

  private static void gauge(
      MeterRegistry registry,
      String name,
      String help,
      String unit,
      Supplier<TableState> state,
      java.util.function.ToDoubleFunction<TableState> value) {
    Supplier<Number> read =
        () -> {
          TableState t = state.get();
          return t == null ? Double.NaN : value.applyAsDouble(t);
        };
    Gauge.Builder<Supplier<Number>> b =
        Gauge.builder(name, read).description(help + " (NaN: the database could not be read)");
    if (unit != null) {
      b.baseUnit(unit);
    }
    b.register(registry);
  }

  static TableState readTableState(javax.sql.DataSource dataSource) throws java.sql.SQLException {
    try (java.sql.Connection c = dataSource.getConnection();
        java.sql.PreparedStatement ps = c.prepareStatement(Diagnostics.DELIVERY);
        java.sql.ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new TableState(
          rs.getLong("outbox_pending"),
          instant(rs, "outbox_oldest"),
          rs.getLong("outbox_quarantined"),
          rs.getLong("recorder_pending"),
          instant(rs, "recorder_oldest"),
          rs.getLong("recorder_gave_up"),
          rs.getLong("poison"));
    }
  }

  private static Instant instant(java.sql.ResultSet rs, String column)
      throws java.sql.SQLException {
    java.time.OffsetDateTime t = rs.getObject(column, java.time.OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  private static double age(Clock clock, Instant since) {
    return since == null
        ? 0
        : Math.max(0, Duration.between(since, clock.instant()).toMillis() / 1000.0);
  }

  /**
   * A value read at most every GAUGE_CACHE; a failed read is logged and shows as no value (NaN).
   */
  static <T> Supplier<T> cached(CheckedSupplier<T> read) {
    return new Supplier<>() {
      private T value;
      private long readAt = Long.MIN_VALUE;

      @Override
      public synchronized T get() {
        long now = System.nanoTime();
        if (readAt == Long.MIN_VALUE || now - readAt > GAUGE_CACHE.toNanos()) {
          readAt = now;
          try {
            value = read.get();
          } catch (Exception e) {
            value = null;
            log.atWarn()
                .addKeyValue("reason", e.getMessage())
                .log("a gauge could not read the database");
          }
        }
        return value;
      }
    };
  }

  /** A supplier that may throw. */
  @FunctionalInterface
  interface CheckedSupplier<T> {
    T get() throws Exception;
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

  public Instant lastCycleCompleted() {
    return lastCycleCompleted;
  }

  @Override
  public void cycleFailed(String jobRunId, Throwable error) {
    runs.increment();
    cycleErrors.increment();
  }

  @Override
  public void batchCommitted(Phase phase, BatchOutcome outcome) {
    items.get(phase).increment(outcome.closed());
    skipLocked.increment(outcome.skippedLocked());
  }

  @Override
  public void itemFailed(String jobRunId, Phase phase, UUID conferenceId, String error) {
    itemErrors.increment();
  }

  @Override
  public void conferenceReaped(String jobRunId, Transition transition) {}

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
