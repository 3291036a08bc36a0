package pin.messenger.reaper.app;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.springframework.beans.factory.DisposableBean;
import pin.messenger.reaper.core.BatchOutcome;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.delivery.Backoff;
import pin.messenger.reaper.delivery.DeliveryLoop;
import pin.messenger.reaper.delivery.OutboxRelay;
import pin.messenger.reaper.delivery.RecorderOptions;
import pin.messenger.reaper.delivery.RecorderStopDispatcher;
import pin.messenger.reaper.delivery.RelayOptions;

/**
 * The delivery side of the worker: the relay and the recorder dispatcher (each may be off), their
 * loops for the long-running commands, and one bounded drain for {@code run-once}. Woken by the
 * reaper after each commit.
 */
public final class Delivery implements ReaperObserver, DisposableBean {
  /** Published rows are swept at most this often. */
  static final Duration SWEEP_EVERY = Duration.ofHours(1);

  private final OutboxRelay relay;
  private final RecorderStopDispatcher recorder;
  private final DeliveryLoop relayLoop;
  private final DeliveryLoop recorderLoop;
  private Instant lastSweep = Instant.MIN;

  Delivery(
      OutboxRelay relay,
      RecorderStopDispatcher recorder,
      RelayOptions relayOptions,
      RecorderOptions recorderOptions,
      Clock clock) {
    this.relay = relay;
    this.recorder = recorder;
    this.relayLoop =
        relay == null
            ? null
            : new DeliveryLoop(
                "outbox-relay",
                this::relayStep,
                clock,
                relayOptions.pollInterval(),
                new Backoff(relayOptions.retryBase(), relayOptions.retryCap()));
    this.recorderLoop =
        recorder == null
            ? null
            : new DeliveryLoop(
                "recorder-dispatch",
                recorder,
                clock,
                recorderOptions.pollInterval(),
                new Backoff(recorderOptions.retryBase(), recorderOptions.retryCap()));
  }

  public OutboxRelay relay() {
    return relay;
  }

  public RecorderStopDispatcher recorder() {
    return recorder;
  }

  private DeliveryLoop.Outcome relayStep(Instant now) throws SQLException {
    if (Duration.between(lastSweep, now).compareTo(SWEEP_EVERY) >= 0) {
      lastSweep = now;
      relay.sweep(now, 100);
    }
    return relay.run(now);
  }

  /** Starts the loops (long-running commands). */
  void start() {
    if (relayLoop != null) {
      relayLoop.start();
    }
    if (recorderLoop != null) {
      recorderLoop.start();
    }
  }

  /**
   * Delivers what is pending now, bounded by {@code budget}: for {@code run-once}. Returns
   * published, delivered.
   */
  int[] drain(Instant now, Duration budget) throws SQLException {
    long deadline = System.nanoTime() + budget.toNanos();
    int published = 0;
    int delivered = 0;
    if (relay != null) {
      OutboxRelay.StepResult r;
      do {
        r = relay.relayOnce(now);
        published += r.published();
      } while (r.published() > 0 && r.unavailable() == 0 && System.nanoTime() < deadline);
    }
    if (recorder != null) {
      RecorderStopDispatcher.StepResult r;
      do {
        r = recorder.dispatchOnce(now);
        delivered += r.delivered();
      } while (r.delivered() > 0 && System.nanoTime() < deadline);
    }
    return new int[] {published, delivered};
  }

  @Override
  public void batchCommitted(Phase phase, BatchOutcome outcome) {
    if (outcome.closed() == 0) {
      return;
    }
    if (relayLoop != null) {
      relayLoop.wakeUp();
    }
    if (recorderLoop != null) {
      recorderLoop.wakeUp();
    }
  }

  /**
   * Stops the loops after their current batch, then closes the producer (flushing what it holds).
   */
  @Override
  public void destroy() {
    if (relayLoop != null) {
      relayLoop.close();
    }
    if (recorderLoop != null) {
      recorderLoop.close();
    }
    if (relay != null) {
      relay.close();
    }
  }
}
