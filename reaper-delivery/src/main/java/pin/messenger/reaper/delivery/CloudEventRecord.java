package pin.messenger.reaper.delivery;

import io.opentelemetry.api.trace.Span;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import pin.messenger.reaper.core.ConferenceEndedEvent;

/**
 * What the relay puts on the topic for an outbox row: a CloudEvents binary-mode Kafka record (the
 * headers and their meaning are in docs/contract).
 */
final class CloudEventRecord {
  /** CloudEvents spec version of the binary-mode headers. */
  static final String SPEC_VERSION = "1.0";

  /**
   * The CloudEvents {@code type} is this prefix + the outbox row's {@code event_type}. A row whose
   * {@code event_type} already is the full type (written by another producer) keeps it as it is:
   * the prefix is never doubled.
   */
  static final String TYPE_PREFIX = "pin.messenger.";

  /** The CloudEvents {@code type} of conference-ended.v1, the one type with a published schema. */
  static final String CONFERENCE_ENDED_TYPE = TYPE_PREFIX + ConferenceEndedEvent.EVENT_TYPE;

  private CloudEventRecord() {}

  /**
   * The record of {@code row}: CloudEvents binary-mode headers, {@code ce_dataschema} for an event
   * type with a published schema, and the trace context: {@code traceparent} (and {@code
   * tracestate}) of the producer {@code span}, and {@code ce_traceparent}, the CloudEvents
   * distributed-tracing extension, naming the context the row was written under, unchanged (only a
   * valid W3C {@code traceparent} is forwarded). Every header is in docs/contract.
   */
  static ProducerRecord<String, byte[]> of(OutboxRow row, String source, Span span) {
    RecordHeaders headers = new RecordHeaders();
    header(headers, "ce_specversion", SPEC_VERSION);
    header(headers, "ce_id", row.id().toString());
    String type = ceType(row.eventType());
    header(headers, "ce_type", type);
    header(headers, "ce_source", source);
    header(headers, "ce_time", DateTimeFormatter.ISO_INSTANT.format(row.occurredAt()));
    if (row.subject() != null) {
      header(headers, "ce_subject", row.subject());
    }
    if (type.equals(CONFERENCE_ENDED_TYPE)) {
      header(headers, "ce_dataschema", ConferenceEndedEvent.DATA_SCHEMA);
    }
    if (row.correlationId() != null) {
      header(headers, "ce_correlationid", row.correlationId());
    }
    String origin = row.traceParent();
    if (origin != null && DeliveryTracing.isValid(origin)) {
      header(headers, "ce_traceparent", origin);
    }
    DeliveryTracing.inject(span, (name, value) -> header(headers, name, value));
    header(headers, "content-type", "application/json");
    return new ProducerRecord<>(
        row.topic(), null, row.key(), row.payload().getBytes(StandardCharsets.UTF_8), headers);
  }

  /**
   * The CloudEvents {@code type} of an outbox row's {@code event_type}; see {@link #TYPE_PREFIX}.
   */
  static String ceType(String eventType) {
    return eventType.startsWith(TYPE_PREFIX) ? eventType : TYPE_PREFIX + eventType;
  }

  private static void header(RecordHeaders headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
