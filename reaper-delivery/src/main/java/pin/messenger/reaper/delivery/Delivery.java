package pin.messenger.reaper.delivery;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.BatchOutcome;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;

/**
 * The delivery side of the worker: the relay and the recorder dispatcher (each may be off), their
 * loops for the long-running commands, and one bounded drain for {@code run-once}. Woken by the
 * reaper after each commit.
 */
public final class Delivery implements ReaperObserver, AutoCloseable {
  /** Published rows are swept at most this often. */
  static final Duration SWEEP_EVERY = Duration.ofHours(1);

  private final @Nullable OutboxRelay relay;
  private final @Nullable RecorderStopDispatcher recorder;
  private final @Nullable DeliveryLoop relayLoop;
  private final @Nullable DeliveryLoop recorderLoop;
  private final Clock clock;
  private final int relayBatchSize;
  private final @Nullable Runnable topicCheck;
  private Instant lastSweep = Instant.MIN;
  private volatile boolean stopping;

  /** {@code topicCheck}: run once at {@link #start()} when the relay is on; null for none. */
  public Delivery(
      @Nullable OutboxRelay relay,
      @Nullable RecorderStopDispatcher recorder,
      RelayOptions relayOptions,
      RecorderOptions recorderOptions,
      Clock clock,
      @Nullable Runnable topicCheck) {
    this.relay = relay;
    this.recorder = recorder;
    this.clock = clock;
    this.relayBatchSize = relayOptions.batchSize();
    this.topicCheck = topicCheck;
    this.relayLoop =
        relay == null
            ? null
            : new DeliveryLoop(
                "outbox-relay",
                this::relayStep,
                clock,
                relayOptions.pollInterval(),
                relayOptions.backoff());
    this.recorderLoop =
        recorder == null
            ? null
            : new DeliveryLoop(
                "recorder-dispatch",
                recorder,
                clock,
                recorderOptions.pollInterval(),
                recorderOptions.backoff());
  }

  public @Nullable OutboxRelay relay() {
    return relay;
  }

  public @Nullable RecorderStopDispatcher recorder() {
    return recorder;
  }

  private DeliveryLoop.Outcome relayStep(Instant now) throws SQLException {
    OutboxRelay relay = Objects.requireNonNull(this.relay, "relayStep runs only with the relay on");
    if (Duration.between(lastSweep, now).compareTo(SWEEP_EVERY) >= 0) {
      lastSweep = now;
      relay.sweep(now, 100);
    }
    return relay.run(now);
  }

  /** Starts the loops (long-running commands), and the relay's look at its topic. */
  public void start() {
    if (relayLoop != null) {
      relayLoop.start();
      if (topicCheck != null) {
        topicCheck.run();
      }
    }
    if (recorderLoop != null) {
      recorderLoop.start();
    }
  }

  /**
   * Delivers what is pending now, for {@code run-once}: the relay and the recorder dispatcher run
   * concurrently (neither waits behind the other), each step with the pass's deadline {@code
   * budget} from now, so the pass ends within {@code budget} plus one step's settle statements. The
   * relay goes on while its steps make progress (published or quarantined rows, or a full batch),
   * so a key whose head row was quarantined sends its next event in the same pass; it stops at the
   * first step that could not reach the broker. Each step reads the clock for its own time (its
   * lease starts then), so {@code now} only marks the pass's start.
   */
  public Drained drain(Instant now, Duration budget) throws SQLException {
    long deadline = System.nanoTime() + budget.toNanos();
    CompletableFuture<Integer> delivered =
        recorder == null
            ? CompletableFuture.completedFuture(0)
            : CompletableFuture.supplyAsync(
                () -> drainRecorder(deadline), r -> new Thread(r, "run-once-recorder").start());
    int published = relay == null ? 0 : drainRelay(deadline);
    try {
      return new Drained(published, delivered.join());
    } catch (CompletionException e) {
      if (e.getCause() instanceof UncheckedSqlException u) {
        throw u.getCause();
      }
      throw e;
    }
  }

  /**
   * What one {@link #drain} pass delivered.
   *
   * @param published outbox rows the broker acknowledged
   * @param recorderStopsDelivered stop requests the recorder accepted
   */
  public record Drained(int published, int recorderStopsDelivered) {}

  private int drainRelay(long deadline) throws SQLException {
    OutboxRelay relay =
        Objects.requireNonNull(this.relay, "drainRelay runs only with the relay on");
    int published = 0;
    OutboxRelay.StepResult r;
    do {
      r = relay.relayOnce(clock.instant(), deadline);
      published += r.published();
    } while (r.unavailable() == 0
        && (r.published() + r.quarantined() > 0 || r.claimed() >= relayBatchSize)
        && System.nanoTime() - deadline < 0
        && !stopping);
    return published;
  }

  private int drainRecorder(long deadline) {
    RecorderStopDispatcher recorder =
        Objects.requireNonNull(this.recorder, "drainRecorder runs only with the dispatcher on");
    int delivered = 0;
    try {
      RecorderStopDispatcher.StepResult r;
      do {
        r = recorder.dispatchOnce(clock.instant(), deadline);
        delivered += r.delivered();
      } while (r.delivered() > 0 && System.nanoTime() - deadline < 0 && !stopping);
    } catch (SQLException e) {
      throw new UncheckedSqlException(e);
    }
    return delivered;
  }

  /**
   * The process is stopping (SIGTERM during {@code run-once}'s delivery pass, or the context
   * closing): the pass takes no further step, a relay step sends nothing more and waits a few
   * seconds at most for what it sent, a recorder step stops waiting for the media stack. Rows not
   * delivered stay pending for the next run (at-least-once).
   */
  public void stop() {
    stopping = true;
    if (relay != null) {
      relay.stop();
    }
    if (recorder != null) {
      recorder.stop();
    }
  }

  /** Carries a recorder step's SQLException out of its thread. */
  private static final class UncheckedSqlException extends RuntimeException {
    UncheckedSqlException(SQLException e) {
      super(e);
    }

    @Override
    public synchronized @Nullable SQLException getCause() {
      return (SQLException) super.getCause();
    }
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
   * Stops the loops: a running relay step sends nothing more and waits a few seconds at most for
   * what it sent ({@link OutboxRelay#stop()}), a recorder step stops waiting for the media stack
   * ({@link RecorderStopDispatcher#stop()}), then the producer is closed (bounded) after the step
   * ended, never under it.
   */
  @Override
  public void close() {
    stop();
    // Each loop exists only when its delivery is on.
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
