package pin.messenger.reaper.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The reaper's options ({@code reaper.*}). Immutable and self-validating: construction fails with
 * every violation, each naming the property and the value it had. Bad configuration is never
 * replaced by a default.
 *
 * @param pollingInterval time between cycle starts ({@code reaper.polling-interval}, default 30 s)
 * @param emptyRoomGrace how long an Active room may stay empty ({@code reaper.empty-room-grace},
 *     default 90 s)
 * @param provisionTimeout how long a room may stay Provisioning ({@code reaper.provision-timeout},
 *     default 2 min)
 * @param staleLiveTimeout how long an Active room may go without presence ({@code
 *     reaper.stale-live-timeout}, 4 h)
 * @param batchSize conferences claimed per phase per transaction ({@code reaper.batch-size},
 *     default 100)
 * @param lockTtl after this the server frees the run lock and row locks of a hung holder ({@code
 *     reaper.lock-ttl}, 2 min)
 * @param maxRunDuration a cycle starts no new batch past this ({@code reaper.max-run-duration},
 *     default 30 s)
 * @param statementTimeout server-side limit of one statement ({@code reaper.statement-timeout},
 *     default 10 s)
 * @param enabled the CONFERENCE_CALLS_ENABLED flag: when false the worker does not reap ({@code
 *     reaper.enabled})
 * @param drainEnabled keep claiming full batches while the cycle's time allows ({@code
 *     reaper.drain.enabled}, off)
 * @param drainPause pause between two drain batches of a phase ({@code reaper.drain.pause}, default
 *     50 ms)
 * @param clock whose clock gives each cycle its {@code asOf} ({@code reaper.clock}: {@code system},
 *     the spec's and the default, or {@code database}); see {@link ClockSource}
 * @param schedule when the periodic worker starts its cycles ({@code reaper.schedule}: {@code
 *     next-due}, the default, or {@code fixed}, the spec's tick); see {@link CycleSchedule}
 * @param nextDueCoalesce how long after the earliest due instant the next-due schedule starts the
 *     cycle, so that rooms falling due close together are one cycle ({@code
 *     reaper.next-due.coalesce}, default 200 ms)
 * @param nextDueMinGap the next-due schedule never starts a cycle closer than this to the previous
 *     start ({@code reaper.next-due.min-gap}, default 1 s): at most 60 cycles a minute however many
 *     rooms fall due
 */
public record ConferenceRoomReaperOptions(
    Duration pollingInterval,
    Duration emptyRoomGrace,
    Duration provisionTimeout,
    Duration staleLiveTimeout,
    int batchSize,
    Duration lockTtl,
    Duration maxRunDuration,
    Duration statementTimeout,
    boolean enabled,
    boolean drainEnabled,
    Duration drainPause,
    ClockSource clock,
    Schedule schedule,
    Duration nextDueCoalesce,
    Duration nextDueMinGap) {

  public static final Duration DEFAULT_POLLING_INTERVAL = Duration.ofSeconds(30);
  public static final Duration DEFAULT_EMPTY_ROOM_GRACE = Duration.ofSeconds(90);
  public static final Duration DEFAULT_PROVISION_TIMEOUT = Duration.ofMinutes(2);
  public static final Duration DEFAULT_STALE_LIVE_TIMEOUT = Duration.ofHours(4);
  public static final int DEFAULT_BATCH_SIZE = 100;
  public static final int MAX_BATCH_SIZE = 10_000;
  public static final Duration DEFAULT_LOCK_TTL = Duration.ofMinutes(2);
  public static final Duration DEFAULT_MAX_RUN_DURATION = Duration.ofSeconds(30);
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_DRAIN_PAUSE = Duration.ofMillis(50);
  public static final ClockSource DEFAULT_CLOCK = ClockSource.SYSTEM;
  public static final Schedule DEFAULT_SCHEDULE = Schedule.NEXT_DUE;
  public static final Duration DEFAULT_NEXT_DUE_COALESCE = Duration.ofMillis(200);
  public static final Duration DEFAULT_NEXT_DUE_MIN_GAP = Duration.ofSeconds(1);

  /** PostgreSQL timeouts are whole milliseconds; anything shorter would be read as "no timeout". */
  private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);

  public ConferenceRoomReaperOptions {
    List<String> errors = new ArrayList<>();
    positive(errors, "reaper.polling-interval", pollingInterval);
    positive(errors, "reaper.empty-room-grace", emptyRoomGrace);
    positive(errors, "reaper.provision-timeout", provisionTimeout);
    positive(errors, "reaper.stale-live-timeout", staleLiveTimeout);
    positive(errors, "reaper.lock-ttl", lockTtl);
    positive(errors, "reaper.max-run-duration", maxRunDuration);
    positive(errors, "reaper.statement-timeout", statementTimeout);
    if (drainPause == null || drainPause.isNegative()) {
      errors.add("reaper.drain.pause must be zero or positive but was " + drainPause);
    }
    if (clock == null) {
      errors.add("reaper.clock is required (system or database) but was null");
    }
    if (schedule == null) {
      errors.add("reaper.schedule is required (fixed or next-due) but was null");
    }
    notNegative(errors, "reaper.next-due.coalesce", nextDueCoalesce);
    notNegative(errors, "reaper.next-due.min-gap", nextDueMinGap);
    if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
      errors.add(
          "reaper.batch-size must be between 1 and " + MAX_BATCH_SIZE + " but was " + batchSize);
    }
    shorter(errors, "reaper.max-run-duration", maxRunDuration, "reaper.lock-ttl", lockTtl);
    shorter(
        errors,
        "reaper.empty-room-grace",
        emptyRoomGrace,
        "reaper.stale-live-timeout",
        staleLiveTimeout);
    if (isPositive(statementTimeout)
        && isPositive(maxRunDuration)
        && statementTimeout.compareTo(maxRunDuration) > 0) {
      errors.add(
          "reaper.statement-timeout must not exceed reaper.max-run-duration ("
              + maxRunDuration
              + ") but was "
              + statementTimeout);
    }
    if (isPositive(statementTimeout)
        && isPositive(lockTtl)
        && statementTimeout.multipliedBy(STATEMENTS_PER_BATCH).compareTo(lockTtl) >= 0) {
      // A batch runs up to four statements that may each take statement-timeout (claim, count,
      // write, commit): together they must end before the server frees the run lock, or a batch
      // could commit after another runner took over.
      errors.add(
          "reaper.statement-timeout × "
              + STATEMENTS_PER_BATCH
              + " must be shorter than reaper.lock-ttl ("
              + lockTtl
              + ") but was "
              + statementTimeout);
    }
    if (!errors.isEmpty()) {
      throw new InvalidOptionsException(errors);
    }
  }

  /** The shortest of the three windows. */
  public Duration shortestWindow() {
    Duration shortest = null;
    for (Phase phase : Phase.values()) {
      Duration w = phase.window(this);
      if (shortest == null || w.compareTo(shortest) < 0) {
        shortest = w;
      }
    }
    return java.util.Objects.requireNonNull(shortest);
  }

  /**
   * Under the next-due schedule, what precision is lost when the polling interval is not shorter
   * than the shortest window (empty; start-up logs it as a warning otherwise). A room that empties
   * (or is created) just after a due read falls due one window later; it is seen by the next read
   * before it is due only if that read comes within the window, and the reads come at least every
   * polling interval. Otherwise such a room may be closed up to {@code polling-interval − window}
   * late — never later than the fixed schedule would close it.
   */
  public java.util.Optional<String> nextDuePrecisionWarning() {
    if (schedule != Schedule.NEXT_DUE || pollingInterval.compareTo(shortestWindow()) < 0) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        "reaper.polling-interval ("
            + pollingInterval
            + ") is not shorter than the shortest window ("
            + shortestWindow()
            + "): under reaper.schedule=next-due a room that falls due less than one polling"
            + " interval after a due read may be closed up to "
            + pollingInterval.minus(shortestWindow()).plus(nextDueCoalesce)
            + " late (polling-interval − window + coalesce); set it below the window to close"
            + " every room within the coalescing delay");
  }

  /** Statements of one batch that may each run up to statement-timeout. */
  static final int STATEMENTS_PER_BATCH = 4;

  /** The spec's defaults. */
  public static ConferenceRoomReaperOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A copy with other values, for tests and tools. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.pollingInterval = pollingInterval;
    b.emptyRoomGrace = emptyRoomGrace;
    b.provisionTimeout = provisionTimeout;
    b.staleLiveTimeout = staleLiveTimeout;
    b.batchSize = batchSize;
    b.lockTtl = lockTtl;
    b.maxRunDuration = maxRunDuration;
    b.statementTimeout = statementTimeout;
    b.enabled = enabled;
    b.drainEnabled = drainEnabled;
    b.drainPause = drainPause;
    b.clock = clock;
    b.schedule = schedule;
    b.nextDueCoalesce = nextDueCoalesce;
    b.nextDueMinGap = nextDueMinGap;
    return b;
  }

  /** The effective options, one line, for the start-up log. */
  public String describe() {
    return "pollingInterval="
        + pollingInterval
        + " emptyRoomGrace="
        + emptyRoomGrace
        + " provisionTimeout="
        + provisionTimeout
        + " staleLiveTimeout="
        + staleLiveTimeout
        + " batchSize="
        + batchSize
        + " lockTtl="
        + lockTtl
        + " maxRunDuration="
        + maxRunDuration
        + " statementTimeout="
        + statementTimeout
        + " enabled="
        + enabled
        + " drainEnabled="
        + drainEnabled
        + " drainPause="
        + drainPause
        + " clock="
        + (clock == null ? null : clock.label())
        + " schedule="
        + (schedule == null ? null : schedule.label())
        + " nextDueCoalesce="
        + nextDueCoalesce
        + " nextDueMinGap="
        + nextDueMinGap;
  }

  private static boolean isPositive(Duration d) {
    return d != null && !d.isNegative() && !d.isZero();
  }

  /**
   * When both are positive (else {@link #positive} names them), {@code value} must be below {@code
   * bound}.
   */
  private static void shorter(
      List<String> errors, String property, Duration value, String boundProperty, Duration bound) {
    if (isPositive(value) && isPositive(bound) && value.compareTo(bound) >= 0) {
      errors.add(
          property
              + " must be shorter than "
              + boundProperty
              + " ("
              + bound
              + ") but was "
              + value);
    }
  }

  private static void notNegative(List<String> errors, String property, Duration value) {
    if (value == null) {
      errors.add(property + " is required but was null");
    } else if (value.isNegative()) {
      errors.add(property + " must be zero or positive but was " + value);
    }
  }

  private static void positive(List<String> errors, String property, Duration value) {
    if (value == null) {
      errors.add(property + " is required but was null");
    } else if (value.compareTo(MIN_TIMEOUT) < 0) {
      errors.add(property + " must be at least 1ms but was " + value);
    }
  }

  /** Builder starting from the defaults. */
  public static final class Builder {
    // One field a line, each from its named default: builder boilerplate, nothing shared to
    // extract.
    private Duration pollingInterval = DEFAULT_POLLING_INTERVAL;
    private Duration emptyRoomGrace = DEFAULT_EMPTY_ROOM_GRACE;
    private Duration provisionTimeout = DEFAULT_PROVISION_TIMEOUT;
    private Duration staleLiveTimeout = DEFAULT_STALE_LIVE_TIMEOUT;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration lockTtl = DEFAULT_LOCK_TTL;
    private Duration maxRunDuration = DEFAULT_MAX_RUN_DURATION;
    private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
    private boolean enabled = true;
    private boolean drainEnabled = false;
    private Duration drainPause = DEFAULT_DRAIN_PAUSE;
    private ClockSource clock = DEFAULT_CLOCK;
    private Schedule schedule = DEFAULT_SCHEDULE;
    private Duration nextDueCoalesce = DEFAULT_NEXT_DUE_COALESCE;
    private Duration nextDueMinGap = DEFAULT_NEXT_DUE_MIN_GAP;

    public Builder pollingInterval(Duration v) {
      pollingInterval = v;
      return this;
    }

    public Builder emptyRoomGrace(Duration v) {
      emptyRoomGrace = v;
      return this;
    }

    public Builder provisionTimeout(Duration v) {
      provisionTimeout = v;
      return this;
    }

    public Builder staleLiveTimeout(Duration v) {
      staleLiveTimeout = v;
      return this;
    }

    public Builder batchSize(int v) {
      batchSize = v;
      return this;
    }

    public Builder lockTtl(Duration v) {
      lockTtl = v;
      return this;
    }

    public Builder maxRunDuration(Duration v) {
      maxRunDuration = v;
      return this;
    }

    public Builder statementTimeout(Duration v) {
      statementTimeout = v;
      return this;
    }

    public Builder enabled(boolean v) {
      enabled = v;
      return this;
    }

    public Builder drainEnabled(boolean v) {
      drainEnabled = v;
      return this;
    }

    public Builder drainPause(Duration v) {
      drainPause = v;
      return this;
    }

    public Builder clock(ClockSource v) {
      clock = v;
      return this;
    }

    public Builder schedule(Schedule v) {
      schedule = v;
      return this;
    }

    public Builder nextDueCoalesce(Duration v) {
      nextDueCoalesce = v;
      return this;
    }

    public Builder nextDueMinGap(Duration v) {
      nextDueMinGap = v;
      return this;
    }

    public ConferenceRoomReaperOptions build() {
      return new ConferenceRoomReaperOptions(
          pollingInterval,
          emptyRoomGrace,
          provisionTimeout,
          staleLiveTimeout,
          batchSize,
          lockTtl,
          maxRunDuration,
          statementTimeout,
          enabled,
          drainEnabled,
          drainPause,
          clock,
          schedule,
          nextDueCoalesce,
          nextDueMinGap);
    }
  }
}
