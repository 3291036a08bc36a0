package pin.messenger.reaper.app.lifecycle;

import java.time.Clock;
import java.time.Instant;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import pin.messenger.reaper.app.metrics.DatabaseGauges;
import pin.messenger.reaper.core.ReaperLoop;
import pin.messenger.reaper.delivery.Delivery;

/**
 * Starts the loop when the context is ready and stops it (gracefully) first on shutdown. Under
 * {@code run} the database is met on a thread of its own ({@link DatabaseStartup}), begun as soon
 * as this bean exists, while the context is still being built: the process stays up, observable,
 * while the database does not answer, and the first cycle follows the context's start at once when
 * it does. The one-shot commands have it too, idle: whether a command is periodic is decided when
 * it runs ({@code reaper.command}), never frozen into the context's shape.
 */
public final class ReaperLoopLifecycle implements SmartLifecycle {
  private final ReaperLoop loop;
  private final Delivery delivery;
  private final DatabaseGauges gauges;
  private final Clock clock;
  private final boolean periodic;
  private final @Nullable DatabaseStartup startup;
  private volatile @Nullable Instant startedAt;
  private volatile boolean running;

  /**
   * @param periodic whether the command runs the loop ({@code run}, {@code demo}); false leaves it
   *     idle
   * @param startup given the work to start, the gate that starts it once the database is ready
   *     (begun here); null to start at once (the database was prepared during the context's start)
   */
  public ReaperLoopLifecycle(
      boolean periodic,
      ReaperLoop loop,
      Delivery delivery,
      DatabaseGauges gauges,
      Clock clock,
      @Nullable Function<Runnable, DatabaseStartup> startup) {
    this.periodic = periodic;
    this.loop = loop;
    this.delivery = delivery;
    this.gauges = gauges;
    this.clock = clock;
    this.startup = periodic && startup != null ? startup.apply(this::startWork) : null;
    if (this.startup != null) {
      // Connect and migrate while the rest of the context is built; the work waits for start().
      this.startup.begin();
    }
  }

  /**
   * Starts the background reading of the gauges, delivery (so rows left by an earlier run go out),
   * then the reaper's timer: at once, or once the database is ready.
   */
  @Override
  public void start() {
    if (!periodic) {
      // A one-shot command: nothing runs in the background.
    } else if (startup != null) {
      startup.contextStarted();
    } else {
      startWork();
    }
    running = true;
  }

  private void startWork() {
    // The loop first: its first cycle does not wait behind the other threads' start.
    loop.start();
    gauges.start();
    delivery.start();
    startedAt = clock.instant();
  }

  /** When the work started; null while waiting for the database. */
  public @Nullable Instant startedAt() {
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

  /**
   * Ends the database wait when the context closes without having started (a failed start-up);
   * after {@link #stop} it has nothing left to do.
   */
  public void close() {
    if (startup != null) {
      startup.close();
    }
    loop.close();
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
