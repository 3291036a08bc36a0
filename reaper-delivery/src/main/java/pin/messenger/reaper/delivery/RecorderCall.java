package pin.messenger.reaper.delivery;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The dispatcher's send: asks the {@link RecorderClient} to stop every request of a batch at once.
 * Each call has the connect and read timeouts, and the batch is awaited for at most connect-timeout
 * + read-timeout (or until the step's deadline, if sooner): a call still open then is cancelled and
 * failed. A delivered request's {@code delivered_at} is when its answer arrived ({@code clock}),
 * not when the batch settles.
 */
final class RecorderCall implements LeasedDelivery.Sender<StopRequest> {
  private final RecorderOptions options;
  private final RecorderClient client;
  private final Clock clock;

  /** Completed by {@link #stop()}: ends every wait for an answer at once. */
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  RecorderCall(RecorderOptions options, RecorderClient client, Clock clock) {
    this.options = options;
    this.client = client;
    this.clock = clock;
  }

  /**
   * The process is stopping: no call is made any more (a batch not yet sent is released, no attempt
   * counted), and a call waiting for its answer is cancelled and failed (it may have reached the
   * media stack: the request stays pending and is retried, at-least-once).
   */
  void stop() {
    stopped.complete(null);
  }

  @Override
  public List<SendOutcome> send(List<StopRequest> requests, long stepDeadlineNanos) {
    if (stopped.isDone()) {
      return requests.stream()
          .map(r -> SendOutcome.unavailable("not sent: the dispatcher is stopping"))
          .toList();
    }
    long deadline =
        LeasedDelivery.earlier(
            System.nanoTime() + options.callBound().toNanos(), stepDeadlineNanos);
    List<CompletableFuture<SendOutcome>> calls = new ArrayList<>(requests.size());
    for (StopRequest r : requests) {
      calls.add(client.stop(r).thenApply(o -> o.answeredAt(clock.instant())));
    }
    List<SendOutcome> outcomes = new ArrayList<>(requests.size());
    for (CompletableFuture<SendOutcome> call : calls) {
      outcomes.add(await(call, deadline));
    }
    return outcomes;
  }

  private SendOutcome await(CompletableFuture<SendOutcome> call, long deadline) {
    try {
      CompletableFuture.anyOf(call, stopped)
          .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (!call.isDone()) {
        call.cancel(true);
        return SendOutcome.failed("cancelled: the dispatcher stopped before the answer came");
      }
      return call.get();
    } catch (TimeoutException e) {
      call.cancel(true);
      return SendOutcome.failed(
          "TimeoutException: no response within " + options.callBound().toMillis() + " ms");
    } catch (ExecutionException e) {
      return SendOutcome.failed(SendOutcome.describe(e.getCause() == null ? e : e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel(true);
      return SendOutcome.failed("interrupted while waiting for the media stack");
    }
  }
}
