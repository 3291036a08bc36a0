package pin.messenger.reaper.app;

import org.springframework.context.SmartLifecycle;
import pin.messenger.reaper.core.ReaperLoop;

/** Starts the loop when the context is ready and stops it (gracefully) first on shutdown. */
public final class ReaperLoopLifecycle implements SmartLifecycle {
  private final ReaperLoop loop;
  private final Delivery delivery;
  private final DatabaseGauges gauges;
  private volatile boolean running;

  ReaperLoopLifecycle(ReaperLoop loop, Delivery delivery, DatabaseGauges gauges) {
    this.loop = loop;
    this.delivery = delivery;
    this.gauges = gauges;
  }

  /**
   * Starts the background reading of the gauges, delivery (so rows left by an earlier run go out),
   * then the reaper's timer.
   */
  @Override
  public void start() {
    gauges.start();
    delivery.start();
    loop.start();
    running = true;
  }

  @Override
  public void stop() {
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
