package pin.messenger.reaper.delivery;

import io.opentelemetry.api.trace.Span;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's send: one batch of outbox rows as CloudEvents (binary mode) records, every
 * acknowledgement awaited against one deadline: {@code send-timeout} from the first send, or the
 * step's deadline if sooner. A record the broker refuses for itself is {@code FAILED}; anything
 * else (timeouts, disconnects, authorisation, metadata not available) is the broker being {@code
 * UNAVAILABLE}.
 *
 * <p>Bounded whatever the broker does: {@code send()} blocks at most the producer's {@code
 * max.block.ms} (kept small, see {@link OutboxRelay#producerProperties}); once one send fails as
 * "broker unavailable", or the deadline passed, or the relay is stopping, the rest of the batch is
 * not sent and comes back {@code UNAVAILABLE} at once, so the step releases those leases instead of
 * timing out row by row. On a stop, acknowledgements are awaited for at most {@link #STOP_GRACE}.
 */
final class KafkaSend implements LeasedDelivery.Sender<OutboxRow>, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaSend.class);

  /**
   * After this many steps in a row that could not reach the broker, the producer is replaced: a
   * producer can be left in a state it does not recover from by itself (its idempotence session or
   * metadata outlived the broker's).
   */
  static final int RENEW_PRODUCER_AFTER = 3;

  /** How long a stopping relay still waits for the acknowledgements of what it already sent. */
  static final Duration STOP_GRACE = Duration.ofSeconds(5);

  /** The longest the producer may take to close (flushing what it holds). */
  static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private static final long AWAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final Supplier<Producer<String, byte[]>> producers;
  private final String source;
  private final long sendTimeoutNanos;
  private final Clock clock;
  private final Reachability broker;
  private final DeliveryTracing tracing;
  private volatile long stopDeadline;
  private volatile boolean stopping;
  private @Nullable Producer<String, byte[]> producer;
  private int unavailableSteps;

  KafkaSend(
      Supplier<Producer<String, byte[]>> producers,
      String source,
      Duration sendTimeout,
      Clock clock,
      Reachability broker,
      DeliveryTracing tracing) {
    this.producers = producers;
    this.source = source;
    this.sendTimeoutNanos = sendTimeout.toNanos();
    this.clock = clock;
    this.broker = broker;
    this.tracing = tracing;
  }

  /**
   * Stops sending: a running step sends nothing more and waits at most {@link #STOP_GRACE} for what
   * it sent; later steps send nothing.
   */
  void stop() {
    stopDeadline = System.nanoTime() + STOP_GRACE.toNanos();
    stopping = true;
  }

  @Override
  public List<SendOutcome> send(List<OutboxRow> rows, long stepDeadline) {
    List<SendOutcome> outcomes = new ArrayList<>(rows.size());
    String unavailable = null;
    if (stopping) {
      unavailable = "not sent: the relay is stopping";
    } else if (producer == null) {
      try {
        producer = producers.get();
      } catch (RuntimeException e) {
        unavailable = SendOutcome.describe(e);
      }
    }
    long deadline = LeasedDelivery.earlier(System.nanoTime() + sendTimeoutNanos, stepDeadline);
    List<CompletableFuture<Instant>> acks = new ArrayList<>(rows.size());
    for (OutboxRow row : rows) {
      if (unavailable == null && System.nanoTime() - deadline >= 0) {
        unavailable = "not sent: the step's deadline passed";
      } else if (unavailable == null && stopping) {
        unavailable = "not sent: the relay is stopping";
      }
      if (unavailable != null) {
        acks.add(null);
        continue;
      }
      CompletableFuture<Instant> ack = sendOne(row);
      acks.add(ack);
      // A send that failed at once for the broker (e.g. no metadata within max.block.ms): the
      // others would wait the same, one after another. Stop and release them.
      if (ack.isCompletedExceptionally()) {
        SendOutcome o = await(ack, deadline);
        if (o.kind() == SendOutcome.Kind.UNAVAILABLE) {
          unavailable = o.note();
        }
      }
    }
    boolean reached = false;
    String stepError = null;
    for (CompletableFuture<Instant> ack : acks) {
      SendOutcome o = ack == null ? SendOutcome.unavailable(unavailable) : await(ack, deadline);
      if (o.kind() == SendOutcome.Kind.UNAVAILABLE) {
        stepError = stepError == null ? o.note() : stepError;
      } else {
        reached = true;
      }
      outcomes.add(o);
    }
    afterStep(reached, stepError);
    return outcomes;
  }

  private CompletableFuture<Instant> sendOne(OutboxRow row) {
    CompletableFuture<Instant> ack = new CompletableFuture<>();
    Producer<String, byte[]> p = producer;
    if (p == null) {
      ack.completeExceptionally(new IllegalStateException("the relay's producer is closed"));
      return ack;
    }
    // The producer span covers the send up to the broker's answer; its context is in the record.
    Span span = tracing.startSend(row);
    try {
      // The callback completes ack; the returned future carries the same outcome.
      var unused =
          p.send(
              CloudEventRecord.of(row, source, span),
              (metadata, error) -> {
                DeliveryTracing.sent(span, metadata, error);
                if (error != null) {
                  ack.completeExceptionally(error);
                } else {
                  ack.complete(clock.instant().truncatedTo(ChronoUnit.MICROS));
                }
              });
    } catch (RuntimeException e) {
      // Thrown rather than reported through the callback (e.g. a closed producer): same handling.
      DeliveryTracing.failed(span, e);
      ack.completeExceptionally(e);
    }
    return ack;
  }

  private SendOutcome await(CompletableFuture<Instant> ack, long deadline) {
    try {
      while (true) {
        long until = stopping ? LeasedDelivery.earlier(deadline, stopDeadline) : deadline;
        long left = until - System.nanoTime();
        if (left <= 0 && !ack.isDone()) {
          return SendOutcome.unavailable(
              stopping
                  ? "no acknowledgement before the relay stopped"
                  : "no acknowledgement within the step's deadline (send-timeout "
                      + TimeUnit.NANOSECONDS.toMillis(sendTimeoutNanos)
                      + " ms)");
        }
        try {
          return SendOutcome.deliveredAt(
              ack.get(Math.min(Math.max(left, 0), AWAIT_SLICE_NANOS), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
          // Next slice: a stop may have shortened the deadline meanwhile.
        }
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      String error = SendOutcome.describe(cause);
      return isRefusal(cause) ? SendOutcome.failed(error) : SendOutcome.unavailable(error);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return SendOutcome.unavailable("interrupted while waiting for the broker");
    }
  }

  private void afterStep(boolean reached, @Nullable String unavailableError) {
    if (unavailableError == null) {
      unavailableSteps = 0;
      if (reached) {
        broker.reached();
      }
      return;
    }
    if (stopping) {
      return; // Not the broker's doing.
    }
    broker.unreachable(unavailableError);
    unavailableSteps++;
    if (unavailableSteps >= RENEW_PRODUCER_AFTER) {
      // Not logged above debug: the outage is logged as a state change by Reachability.
      log.atDebug()
          .addKeyValue("reason", unavailableError)
          .log("broker unreachable for several steps; renewing the producer");
      closeProducer();
      unavailableSteps = 0;
    }
  }

  /** Closes the producer, flushing what it holds. */
  @Override
  public void close() {
    closeProducer();
  }

  private void closeProducer() {
    if (producer != null) {
      try {
        producer.close(CLOSE_TIMEOUT);
      } catch (RuntimeException e) {
        log.atWarn().setCause(e).log("producer did not close cleanly");
      }
      producer = null;
    }
  }

  /**
   * Errors of the record itself, which another try will not cure. Anything else counts as "broker
   * unavailable".
   */
  static boolean isRefusal(Throwable e) {
    return e instanceof RecordTooLargeException
        || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidRecordException
        || e instanceof InvalidTopicException
        || e instanceof SerializationException;
  }
}
