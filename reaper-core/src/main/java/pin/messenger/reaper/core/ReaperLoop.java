package pin.messenger.reaper.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic timer, on one thread, so a cycle never starts on top of a running one (a late cycle
 * delays the next start instead of overlapping it). It only schedules: all work is {@link
 * ConferenceRoomReaper#runOnce}. It catches everything a cycle throws, logs it and carries on.
 *
 * <p>{@link Schedule#FIXED}: a fixed rate of one polling interval, first tick now (the spec's
 * timer). {@link Schedule#NEXT_DUE}: after each cycle, one read of when each phase next has a row
 * to claim ({@link ConferenceRoomReaper#dueTimes}) and one delayed start at {@link
 * CycleSchedule#next}; when that read fails, the next start is the polling interval's tick.
 */
public final class ReaperLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReaperLoop.class);

  private final ConferenceRoomReaper reaper;
  private final Consumer<CycleResult> onCycle;
  private final Consumer<Wakeup> onWakeup;
  private final CycleSchedule schedule;
  private final Clock clock;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final Cancellation cancellation = stopping::get;
  private @Nullable ScheduledThreadPoolExecutor executor;
  private volatile @Nullable Wakeup nextWakeup;
  private volatile boolean dueReadFailing;

  /**
   * @param reaper the cycle; it takes each cycle's moment from its own clock ({@code reaper.clock})
   */
  public ReaperLoop(ConferenceRoomReaper reaper, @Nullable Consumer<CycleResult> onCycle) {
    this(reaper, onCycle, null);
  }

  /**
   * @param onWakeup told of every scheduled start (the status gauges), on the loop's thread
   */
  public ReaperLoop(
      ConferenceRoomReaper reaper,
      @Nullable Consumer<CycleResult> onCycle,
      @Nullable Consumer<Wakeup> onWakeup) {
    this.reaper = reaper;
    this.onCycle = onCycle == null ? r -> {} : onCycle;
    this.onWakeup = onWakeup == null ? w -> {} : onWakeup;
    this.schedule = new CycleSchedule(reaper.options());
    this.clock = reaper.clock();
  }

  /** Starts the timer, first cycle now. */
  public synchronized void start() {
    if (executor != null) {
      return;
    }
    ConferenceRoomReaperOptions options = reaper.options();
    if (!options.enabled()) {
      log.atWarn().log("conference-room-reaper disabled (reaper.enabled=false): no cycle will run");
      return;
    }
    ScheduledThreadPoolExecutor ex =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "conference-room-reaper");
              t.setDaemon(false);
              return t;
            });
    // A stop while waiting for a delayed start drops that start: shutdown ends at once.
    ex.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    ex.setRemoveOnCancelPolicy(true);
    executor = ex;
    if (options.schedule() == Schedule.FIXED) {
      long period = options.pollingInterval().toMillis();
      // The future is not needed: tick() never throws, and close() stops the executor.
      var unused = ex.scheduleAtFixedRate(this::tick, 0, period, TimeUnit.MILLISECONDS);
    } else {
      var unused = ex.schedule(this::tick, 0, TimeUnit.MILLISECONDS);
    }
    options.nextDuePrecisionWarning().ifPresent(w -> log.atWarn().log(w));
    log.atInfo()
        .addKeyValue("pollingInterval", options.pollingInterval())
        .addKeyValue("schedule", options.schedule().label())
        .addKeyValue("coalesce", options.nextDue().coalesce())
        .addKeyValue("minGap", options.nextDue().minGap())
        .log("reaper loop started");
  }

  /** The next scheduled start and why; null before the first cycle ended. */
  public @Nullable Wakeup nextWakeup() {
    return nextWakeup;
  }

  void tick() {
    if (stopping.get()) {
      return;
    }
    Instant started = clock.instant();
    try {
      runCycle();
    } finally {
      if (!stopping.get()) {
        scheduleNext(started);
      }
    }
  }

  private void runCycle() {
    CycleResult result;
    try {
      result = reaper.runOnce(cancellation);
    } catch (Throwable e) {
      // Never let anything kill the timer: the next tick retries (candidates are still active).
      // The reaper has logged the failure or the cancellation with its jobRunId.
      return;
    }
    try {
      onCycle.accept(result);
    } catch (Throwable e) {
      log.atError().setCause(e).log("a cycle listener failed; the loop carries on");
    }
  }

  /**
   * Works out the next start. Under the fixed schedule the executor's fixed rate starts it; only
   * the wake-up is published. Under next-due, one read of the due times, then one delayed start.
   */
  private void scheduleNext(Instant started) {
    ConferenceRoomReaperOptions options = reaper.options();
    DueTimes due = null;
    if (options.schedule() == Schedule.NEXT_DUE) {
      due = readDueTimes();
    }
    Wakeup wakeup = schedule.next(started, clock.instant(), due);
    nextWakeup = wakeup;
    try {
      onWakeup.accept(wakeup);
    } catch (Throwable e) {
      log.atError().setCause(e).log("a wake-up listener failed; the loop carries on");
    }
    if (options.schedule() == Schedule.FIXED) {
      return;
    }
    long delay = Math.max(0, Duration.between(clock.instant(), wakeup.at()).toMillis());
    log.atDebug()
        .addKeyValue("at", wakeup.at())
        .addKeyValue("reason", wakeup.reason())
        .addKeyValue("due", wakeup.due())
        .addKeyValue("delayMs", delay)
        .log("next cycle scheduled");
    ScheduledThreadPoolExecutor ex = executor;
    if (ex == null || ex.isShutdown()) {
      return;
    }
    try {
      var unused = ex.schedule(this::tick, delay, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // close() shut the executor down between the check and the schedule: stopping anyway.
    }
  }

  /** The due times, or null (then the tick) when the database cannot answer. */
  private @Nullable DueTimes readDueTimes() {
    try {
      DueTimes due = reaper.dueTimes();
      if (dueReadFailing) {
        dueReadFailing = false;
        log.atInfo().log("due times read again; waking for the next due room");
      }
      return due;
    } catch (RuntimeException e) {
      if (!dueReadFailing) {
        dueReadFailing = true;
        log.atWarn()
            .setCause(e)
            .log("due times not read; the next cycle starts one polling interval after this one");
      }
      return null;
    }
  }

  /**
   * Stops the timer. A cycle in progress sees the stop at its next storage call: its open batch
   * rolls back whole (or has committed whole), the run lock is released, then this returns. A wait
   * for the next start ends at once.
   */
  @Override
  public void close() {
    ScheduledThreadPoolExecutor ex;
    synchronized (this) {
      ex = executor;
      stopping.set(true);
    }
    if (ex == null) {
      return;
    }
    ex.shutdown();
    Duration wait = reaper.options().maxRunDuration().plus(reaper.options().statementTimeout());
    try {
      if (!ex.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        log.atWarn().log("cycle did not stop in time; interrupting it");
        ex.shutdownNow();
        ex.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      ex.shutdownNow();
      Thread.currentThread().interrupt();
    }
    log.atInfo().log("reaper loop stopped");
  }
}
