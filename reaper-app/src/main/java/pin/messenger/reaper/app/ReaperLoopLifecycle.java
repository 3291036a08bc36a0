package pin.messenger.reaper.app;

import java.time.Clock;
import java.time.Instant;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import pin.messenger.reaper.core.ReaperLoop;

/**
 * Starts the loop when the context is ready and stops it (gracefully) first on shutdown. Under
 * {@code run} the start waits for the database on a thread of its own ({@link DatabaseStartup}):
 * the process stays up, observable, while the database does not answer.
 */
public final class ReaperLoopLifecycle implements SmartLifecycle {
  private final ReaperLoop loop;
  private final Delivery delivery;
  private final DatabaseGauges gauges;
  private final Clock clock;
  private final @Nullable DatabaseStartup startup;
  private volatile @Nullable Instant startedAt;
  private volatile boolean running;

  /**
   * @param startup given the work to start, the gate that starts it once the database is ready;
   *     null to start at once (the database was prepared during the context's start)
   */
  ReaperLoopLifecycle(
      ReaperLoop loop,
      Delivery delivery,
      DatabaseGauges gauges,
      Clock clock,
      @Nullable Function<Runnable, DatabaseStartup> startup) {
    this.loop = loop;
    this.delivery = delivery;
    this.gauges = gauges;
    this.clock = clock;
    this.startup = startup == null ? null : startup.apply(this::startWork);
  }

  /**
   * Starts the background reading of the gauges, delivery (so rows left by an earlier run go out),
   * then the reaper's timer: at once, or once the database is ready.
   */
  @Override
  public void start() {
    if (startup != null) {
      startup.begin();
    } else {
      startWork();
    }
    running = true;
  }

  private void startWork() {
    gauges.start();
    delivery.start();
    loop.start();
    startedAt = clock.instant();
  }

  /** When the work started; null while waiting for the database. */
  @Nullable Instant startedAt() {
    return startedAt;
  }

  @Override
  public void stop() {
    if (startup != null) {
      startup.close();
    }
    loop.close();
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Stop before the DataSource and other infrastructure go away. */
  @Override
  public int getPhase() {
    return Integer.MAX_VALUE - 100;
  }
}
