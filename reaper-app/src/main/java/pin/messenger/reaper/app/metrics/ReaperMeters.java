package pin.messenger.reaper.app.metrics;

import static pin.messenger.reaper.app.metrics.SnapshotGauges.age;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.BatchOutcome;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;

/**
 * The worker's Micrometer meters of the cycles, exposed in Prometheus form as the spec names them
 * ({@code messenger_conf_reaper_*}): runs, durations, closes, errors, the backlog and the database
 * readings; and the last cycle's start, for liveness. The SLO meters are {@link SloMeters}, the
 * delivery meters {@link DeliveryMeters}, the pauses {@link PauseMeters}. All are registered at
 * start-up so dashboards show zeros, not gaps. Gauges that need the database read the last snapshot
 * of {@link DatabaseGauges}, refreshed off the scrape path: a scrape never waits on the database.
 */
public final class ReaperMeters implements ReaperObserver {

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
  public static final String ENABLED = "messenger.conf.reaper.enabled";
  public static final String POISON_ROWS = "messenger.conf.reaper.poison.rows";
  public static final String GAUGES_AGE = "messenger.conf.reaper.gauges.age";
  public static final String DATABASE_UP = "messenger.conf.reaper.database.up";
  public static final String LIVE_RUNNERS = "messenger.conf.reaper.live.runners";

  /**
   * Buckets that resolve a cycle from 5 ms to 30 s (the spec's target is < 5 s, the hard limit 30
   * s).
   */
  static final Duration[] CYCLE_BUCKETS = {
    Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
    Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
    Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)
  };

  private final Counter runs;
  private final Timer cycleDuration;
  private final Map<Phase, Counter> items = new EnumMap<>(Phase.class);
  private final Counter skipLocked;
  private final Counter itemErrors;
  private final Counter cycleErrors;
  private final Counter lockHeld;
  private final Clock clock;
  private volatile @Nullable Instant lastCycleCompleted;
  private volatile @Nullable Instant lastCycleStarted;

  public ReaperMeters(
      MeterRegistry registry,
      DatabaseGauges database,
      ConferenceRoomReaperOptions options,
      Clock clock) {
    this.clock = clock;
    // Registered at start-up, so dashboards show zero rather than nothing.
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
    backlogGauges(registry, database, clock);
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
    Gauge.builder(LIVE_RUNNERS, database::liveRunners)
        .description(
            "Workers that refreshed their runner row within their silent-after (bin/reaper status"
                + " lists them; NaN: not read yet)")
        .register(registry);
    SnapshotGauges.gauge(
        registry,
        POISON_ROWS,
        "Live conferences whose last close failed (poison rows), now",
        null,
        true,
        SnapshotGauges.tables(database),
        t -> t.poison());
    Gauge.builder(ENABLED, () -> options.enabled() ? 1 : 0)
        .description(
            "1 when reaping is enabled (reaper.enabled, the CONFERENCE_CALLS_ENABLED flag)")
        .register(registry);
  }

  private static void backlogGauges(MeterRegistry registry, DatabaseGauges database, Clock clock) {
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
  }

  @Override
  public void cycleStarted(String jobRunId, Instant asOf) {
    lastCycleStarted = clock.instant();
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
}
