package pin.messenger.reaper.core;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic timer: ticks every polling interval on one thread, so a tick never starts on top of
 * a running cycle (a late cycle delays the next tick instead of overlapping it). It only ticks: all
 * work is {@link ConferenceRoomReaper#runOnce}. It catches everything a cycle throws, logs it and
 * carries on.
 */
public final class ReaperLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReaperLoop.class);

  private final ConferenceRoomReaper reaper;
  private final Consumer<CycleResult> onCycle;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final Cancellation cancellation = stopping::get;
  private @Nullable ScheduledExecutorService executor;

  /**
   * @param reaper the cycle; it takes each cycle's moment from its own clock ({@code reaper.clock})
   */
  public ReaperLoop(ConferenceRoomReaper reaper, @Nullable Consumer<CycleResult> onCycle) {
    this.reaper = reaper;
    this.onCycle = onCycle == null ? r -> {} : onCycle;
  }

  /** Starts ticking at a fixed rate, first tick now. */
  public synchronized void start() {
    if (executor != null) {
      return;
    }
    ConferenceRoomReaperOptions options = reaper.options();
    if (!options.enabled()) {
      log.atWarn().log("conference-room-reaper disabled (reaper.enabled=false): no cycle will run");
      return;
    }
    executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "conference-room-reaper");
              t.setDaemon(false);
              return t;
            });
    long period = options.pollingInterval().toMillis();
    // The future is not needed: tick() never throws, and close() stops the executor.
    var unused = executor.scheduleAtFixedRate(this::tick, 0, period, TimeUnit.MILLISECONDS);
    log.atInfo()
        .addKeyValue("pollingInterval", options.pollingInterval())
        .log("reaper loop started");
  }

  void tick() {
    if (stopping.get()) {
      return;
    }
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
   * Stops ticking. A cycle in progress sees the stop at its next storage call: its open batch rolls
   * back whole (or has committed whole), the run lock is released, then this returns.
   */
  @Override
  public void close() {
    ScheduledExecutorService ex;
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
