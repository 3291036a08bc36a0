package pin.messenger.reaper.delivery;

import io.opentelemetry.api.OpenTelemetry;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Delivers {@code messenger.recorder_stop_requests} to the media stack after commit ({@link
 * RecorderCall} through the {@link RecorderClient} of {@code reaper.recorder.kind}); a failed call
 * is retried with backoff up to max-attempts, then given up (recording-finalize-retry is the safety
 * net); a request the recorder refuses for good (our credentials, nothing to stop by) is given up
 * at once. Calls run outside every transaction: rows are leased by a short claim statement, then
 * called, then marked ({@link LeasedDelivery}).
 */
public final class RecorderStopDispatcher implements DeliveryLoop.Step {

  /**
   * What one step did; {@code failed} includes {@code gaveUp}. {@code leaseLost}: requests called
   * whose lease another dispatcher had taken over, so their outcome was not written.
   */
  public record StepResult(int claimed, int delivered, int failed, int gaveUp, int leaseLost) {}

  private final RecorderOptions options;
  private final DeliveryObserver observer;
  private final RecorderCall call;
  private final LeasedDelivery<StopRequest> delivery;

  public RecorderStopDispatcher(
      DataSource dataSource, RecorderOptions options, DeliveryObserver observer) {
    this(dataSource, options, observer, OpenTelemetry.noop());
  }

  /**
   * As above, with an HTTP client span per call from {@code openTelemetry}, continuing the trace
   * context stored on its request ({@link DeliveryTracing}); {@link OpenTelemetry#noop()} records
   * none.
   */
  public RecorderStopDispatcher(
      DataSource dataSource,
      RecorderOptions options,
      DeliveryObserver observer,
      OpenTelemetry openTelemetry) {
    if (!options.enabled()) {
      throw new IllegalArgumentException(
          "reaper.recorder.base-url is not set (reaper.recorder.kind=http)");
    }
    this.options = options;
    this.observer = observer == null ? DeliveryObserver.NONE : observer;
    Clock clock = Clock.systemUTC();
    this.call =
        new RecorderCall(
            options, RecorderClient.of(options, clock, new DeliveryTracing(openTelemetry)), clock);
    this.delivery =
        new LeasedDelivery<>(
            new DeliveryStore(dataSource, options.statementTimeout())
                .stopRequests("recorder-" + UUID.randomUUID()),
            call,
            options,
            this.observer);
  }

  @Override
  public DeliveryLoop.Outcome run(Instant now) throws SQLException {
    StepResult r = dispatchOnce(now);
    // A failed call is retried by the row's own backoff, so the loop itself never needs to back
    // off.
    return r.claimed() >= options.batchSize()
        ? DeliveryLoop.Outcome.MORE
        : DeliveryLoop.Outcome.IDLE;
  }

  /**
   * The process is stopping: a step waiting for the media stack settles at once (an open call is
   * cancelled and counted failed, a batch not yet sent is released), and later steps send nothing.
   */
  public void stop() {
    call.stop();
  }

  /** Claims a batch, calls the recorder for each request concurrently, marks the outcomes. */
  public StepResult dispatchOnce(Instant now) throws SQLException {
    return dispatchOnce(now, Long.MAX_VALUE);
  }

  /**
   * As {@link #dispatchOnce(Instant)}, with no call open after {@code deadlineNanos} (a {@link
   * System#nanoTime()} value): for a bounded pass such as {@code run-once}'s.
   */
  public StepResult dispatchOnce(Instant now, long deadlineNanos) throws SQLException {
    LeasedDelivery.Result r = delivery.step(now, deadlineNanos);
    observer.recorderDispatched(r.delivered(), r.failed(), r.gaveUp());
    return new StepResult(r.claimed(), r.delivered(), r.failed(), r.gaveUp(), r.leaseLost());
  }
}
