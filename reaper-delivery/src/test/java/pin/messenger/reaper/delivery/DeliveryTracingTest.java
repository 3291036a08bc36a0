package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The relay's trace headers when its own tracing is off, and what counts as a stored context. */
class DeliveryTracingTest {
  static final String STORED = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  static OutboxRow row(@Nullable String traceParent) {
    return new OutboxRow(
        UUID.randomUUID(),
        1,
        "pin.messenger.conference-ended.v1",
        "deal",
        "conference-ended.v1",
        "{}",
        Instant.EPOCH,
        "run",
        0,
        "conference",
        traceParent);
  }

  static Map<String, String> headers(Span span) {
    Map<String, String> headers = new HashMap<>();
    DeliveryTracing.inject(span, headers::put);
    return headers;
  }

  @Test
  void with_tracing_off_the_stored_context_is_passed_on_unchanged() {
    Span span = DeliveryTracing.OFF.startSend(row(STORED));

    assertThat(headers(span)).containsExactly(Map.entry("traceparent", STORED));
  }

  @Test
  void with_tracing_off_and_no_stored_context_no_header_is_written() {
    Span span = DeliveryTracing.OFF.startSend(row(null));

    assertThat(headers(span)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "not-a-traceparent",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"
      })
  void a_stored_value_that_is_not_a_valid_traceparent_is_no_context(String stored) {
    assertThat(DeliveryTracing.isValid(stored)).isFalse();
    assertThat(headers(DeliveryTracing.OFF.startSend(row(stored)))).isEmpty();
  }

  @Test
  void a_valid_stored_traceparent_is_a_context() {
    assertThat(DeliveryTracing.isValid(STORED)).isTrue();
    assertThat(DeliveryTracing.isValid(null)).isFalse();
  }
}
