package pin.messenger.reaper.delivery;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's send: one batch of outbox rows as CloudEvents (binary mode) records, every
 * acknowledgement awaited against one deadline of {@code send-timeout} from the first send. A
 * record the broker refuses for itself is {@code FAILED}; anything else (timeouts, disconnects,
 * authorisation) is the broker being {@code UNAVAILABLE}.
 */
final class KafkaSend implements LeasedDelivery.Sender<OutboxRow>, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaSend.class);

  /** CloudEvents spec version of the binary-mode headers. */
  static final String SPEC_VERSION = "1.0";

  /**
   * After this many steps in a row that could not reach the broker, the producer is replaced: a
   * producer can be left in a state it does not recover from by itself (its idempotence session or
   * metadata outlived the broker's).
   */
  static final int RENEW_PRODUCER_AFTER = 3;

  private final Supplier<Producer<String, byte[]>> producers;
  private final String source;
  private final long sendTimeoutNanos;
  private Producer<String, byte[]> producer;
  private int unavailableSteps;

  KafkaSend(Supplier<Producer<String, byte[]>> producers, String source, Duration sendTimeout) {
    this.producers = producers;
    this.source = source;
    this.sendTimeoutNanos = sendTimeout.toNanos();
  }

  @Override
  public List<SendOutcome> send(List<OutboxRow> rows) {
    if (producer == null) {
      producer = producers.get();
    }
    long deadline = System.nanoTime() + sendTimeoutNanos;
    List<Future<RecordMetadata>> sends = new ArrayList<>(rows.size());
    for (OutboxRow row : rows) {
      sends.add(sendOne(row));
    }
    List<SendOutcome> outcomes = new ArrayList<>(rows.size());
    String unavailable = null;
    for (Future<RecordMetadata> send : sends) {
      SendOutcome o = await(send, deadline);
      if (o.kind() == SendOutcome.Kind.UNAVAILABLE) {
        unavailable = o.note();
      }
      outcomes.add(o);
    }
    afterStep(unavailable);
    return outcomes;
  }

  private Future<RecordMetadata> sendOne(OutboxRow row) {
    try {
      return producer.send(record(row));
    } catch (RuntimeException e) {
      // Thrown rather than reported through the future (e.g. a closed producer): same handling.
      return CompletableFuture.failedFuture(e);
    }
  }

  private SendOutcome await(Future<RecordMetadata> send, long deadline) {
    try {
      send.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return SendOutcome.delivered(null);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      String error = SendOutcome.describe(cause);
      return isRefusal(cause) ? SendOutcome.failed(error) : SendOutcome.unavailable(error);
    } catch (TimeoutException e) {
      return SendOutcome.unavailable(
          "no acknowledgement within " + TimeUnit.NANOSECONDS.toMillis(sendTimeoutNanos) + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return SendOutcome.unavailable("interrupted while waiting for the broker");
    }
  }

  private void afterStep(String unavailableError) {
    if (unavailableError == null) {
      unavailableSteps = 0;
      return;
    }
    unavailableSteps++;
    if (unavailableSteps >= RENEW_PRODUCER_AFTER) {
      log.atWarn()
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
        producer.close(Duration.ofSeconds(5));
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

  private ProducerRecord<String, byte[]> record(OutboxRow row) {
    RecordHeaders headers = new RecordHeaders();
    header(headers, "ce_specversion", SPEC_VERSION);
    header(headers, "ce_id", row.id().toString());
    header(headers, "ce_type", "pin.messenger." + row.eventType());
    header(headers, "ce_source", source);
    header(headers, "ce_time", DateTimeFormatter.ISO_INSTANT.format(row.occurredAt()));
    if (row.subject() != null) {
      header(headers, "ce_subject", row.subject());
    }
    if (row.correlationId() != null) {
      header(headers, "ce_correlationid", row.correlationId());
    }
    header(headers, "content-type", "application/json");
    return new ProducerRecord<>(
        row.topic(), null, row.key(), row.payload().getBytes(StandardCharsets.UTF_8), headers);
  }

  private static void header(RecordHeaders headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
