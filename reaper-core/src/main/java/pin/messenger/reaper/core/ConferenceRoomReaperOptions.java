package pin.messenger.reaper.core;

import static pin.messenger.reaper.core.OptionChecks.atLeastOneMilli;
import static pin.messenger.reaper.core.OptionChecks.isPositive;
import static pin.messenger.reaper.core.OptionChecks.notNegative;
import static pin.messenger.reaper.core.OptionChecks.shorter;
import static pin.messenger.reaper.core.OptionChecks.throwIfAny;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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
 * @param drain drain mode ({@code reaper.drain.*}, beyond the spec, off by default)
 * @param clock whose clock gives each cycle its {@code asOf} ({@code reaper.clock}: {@code system},
 *     the spec's and the default, or {@code database}); see {@link ClockSource}
 * @param schedule when the periodic worker starts its cycles ({@code reaper.schedule}: {@code
 *     next-due}, the default, or {@code fixed}, the spec's tick); see {@link CycleSchedule}
 * @param nextDue the next-due schedule's delays ({@code reaper.next-due.*})
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
    Drain drain,
    ClockSource clock,
    Schedule schedule,
    NextDue nextDue) {

  /**
   * Drain mode ({@code reaper.drain.*}).
   *
   * @param enabled keep claiming full batches while the cycle's time allows ({@code
   *     reaper.drain.enabled}, off)
   * @param pause pause between two drain batches of a phase ({@code reaper.drain.pause}, default 50
   *     ms)
   */
  public record Drain(boolean enabled, Duration pause) {}

  /**
   * The next-due schedule's delays ({@code reaper.next-due.*}).
   *
   * @param coalesce how long after the earliest due instant the schedule starts the cycle, so that
   *     rooms falling due close together are one cycle ({@code reaper.next-due.coalesce}, default
   *     200 ms)
   * @param minGap the schedule never starts a cycle closer than this to the previous start ({@code
   *     reaper.next-due.min-gap}, default 1 s): at most 60 cycles a minute however many rooms fall
   *     due
   */
  public record NextDue(Duration coalesce, Duration minGap) {}

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

  /** Statements of one batch that may each run up to statement-timeout. */
  static final int STATEMENTS_PER_BATCH = 4;

  public ConferenceRoomReaperOptions {
    List<String> errors = new ArrayList<>();
    atLeastOneMilli(errors, "reaper.polling-interval", pollingInterval);
    atLeastOneMilli(errors, "reaper.empty-room-grace", emptyRoomGrace);
    atLeastOneMilli(errors, "reaper.provision-timeout", provisionTimeout);
    atLeastOneMilli(errors, "reaper.stale-live-timeout", staleLiveTimeout);
    atLeastOneMilli(errors, "reaper.lock-ttl", lockTtl);
    atLeastOneMilli(errors, "reaper.max-run-duration", maxRunDuration);
    atLeastOneMilli(errors, "reaper.statement-timeout", statementTimeout);
    if (drain.pause() == null || drain.pause().isNegative()) {
      errors.add("reaper.drain.pause must be zero or positive but was " + drain.pause());
    }
    if (clock == null) {
      errors.add("reaper.clock is required (system or database) but was null");
    }
    if (schedule == null) {
      errors.add("reaper.schedule is required (fixed or next-due) but was null");
    }
    notNegative(errors, "reaper.next-due.coalesce", nextDue.coalesce());
    notNegative(errors, "reaper.next-due.min-gap", nextDue.minGap());
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
    throwIfAny(errors);
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
    return Objects.requireNonNull(shortest);
  }

  /**
   * Under the next-due schedule, what precision is lost when the polling interval is not shorter
   * than the shortest window (empty; start-up logs it as a warning otherwise). A room that empties
   * (or is created) just after a due read falls due one window later; it is seen by the next read
   * before it is due only if that read comes within the window, and the reads come at least every
   * polling interval. Otherwise such a room may be closed up to {@code polling-interval − window}
   * late — never later than the fixed schedule would close it.
   */
  public Optional<String> nextDuePrecisionWarning() {
    if (schedule != Schedule.NEXT_DUE || pollingInterval.compareTo(shortestWindow()) < 0) {
      return Optional.empty();
    }
    return Optional.of(
        "reaper.polling-interval ("
            + pollingInterval
            + ") is not shorter than the shortest window ("
            + shortestWindow()
            + "): under reaper.schedule=next-due a room that falls due less than one polling"
            + " interval after a due read may be closed up to "
            + pollingInterval.minus(shortestWindow()).plus(nextDue.coalesce())
            + " late (polling-interval − window + coalesce); set it below the window to close"
            + " every room within the coalescing delay");
  }

  /** The spec's defaults. */
  public static ConferenceRoomReaperOptions defaults() {
    return builder().build();
  }

  public static ReaperOptionsBuilder builder() {
    return new ReaperOptionsBuilder();
  }

  /** A copy with other values, for tests and tools. */
  public ReaperOptionsBuilder toBuilder() {
    return new ReaperOptionsBuilder(this);
  }

  /** The effective options, one line, for the start-up log. */
  public String describe() {
    return String.format(
        "pollingInterval=%s emptyRoomGrace=%s provisionTimeout=%s staleLiveTimeout=%s batchSize=%d"
            + " lockTtl=%s maxRunDuration=%s statementTimeout=%s enabled=%s drainEnabled=%s"
            + " drainPause=%s clock=%s schedule=%s nextDueCoalesce=%s nextDueMinGap=%s",
        pollingInterval,
        emptyRoomGrace,
        provisionTimeout,
        staleLiveTimeout,
        batchSize,
        lockTtl,
        maxRunDuration,
        statementTimeout,
        enabled,
        drain.enabled(),
        drain.pause(),
        clock == null ? null : clock.label(),
        schedule == null ? null : schedule.label(),
        nextDue.coalesce(),
        nextDue.minGap());
  }
}
