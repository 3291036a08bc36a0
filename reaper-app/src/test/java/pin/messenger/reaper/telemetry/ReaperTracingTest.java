package pin.messenger.reaper.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * A span per cycle (correlation id = jobRunId) and per item (conference id, phase, deal tenant id).
 */
class ReaperTracingTest {
  static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create();
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void a_cycle_span_with_the_job_run_id_and_an_item_span_per_conference_under_it() {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();
    Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
    Rooms rooms = new Rooms(db.dataSource());
    Room empty = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    Room provisioning = rooms.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    Room poison = Rooms.emptyActive(asOf.minusSeconds(400));
    poison.startedAt = null;
    rooms.insert(poison);

    CycleResult result =
        new ConferenceRoomReaper(
                new PostgresReaperStore(db.dataSource()),
                ConferenceRoomReaperOptions.defaults(),
                new ReaperTracing(otel),
                List.of())
            .runOnce(asOf, Cancellation.NONE);

    List<SpanData> spans = exporter.getFinishedSpanItems();
    SpanData cycle =
        spans.stream()
            .filter(s -> s.getName().equals(ReaperTracing.CYCLE_SPAN))
            .findFirst()
            .orElseThrow();
    assertThat(cycle.getAttributes().get(ReaperTracing.CORRELATION_ID))
        .isEqualTo(result.jobRunId());
    assertThat(cycle.getAttributes().get(AttributeKey.longKey("reaper.empty_timeout")))
        .isEqualTo(1L);
    List<SpanData> items =
        spans.stream().filter(s -> s.getName().equals(ReaperTracing.ITEM_SPAN)).toList();
    assertThat(items).hasSize(3);
    assertThat(items)
        .allSatisfy(
            i -> {
              assertThat(i.getParentSpanId()).isEqualTo(cycle.getSpanId());
              assertThat(i.getTraceId()).isEqualTo(cycle.getTraceId());
            });
    SpanData closed =
        items.stream()
            .filter(
                i -> i.getAttributes().get(ReaperTracing.CONFERENCE_ID).equals(empty.id.toString()))
            .findFirst()
            .orElseThrow();
    assertThat(closed.getAttributes().get(ReaperTracing.PHASE)).isEqualTo("empty-room");
    assertThat(closed.getAttributes().get(ReaperTracing.OUTCOME)).isEqualTo("empty_timeout");
    assertThat(closed.getAttributes().get(ReaperTracing.DEAL_TENANT_ID))
        .isEqualTo(empty.tenantId.toString());
    assertThat(items)
        .anySatisfy(
            i -> {
              assertThat(i.getAttributes().get(ReaperTracing.CONFERENCE_ID))
                  .isEqualTo(provisioning.id.toString());
              assertThat(i.getAttributes().get(ReaperTracing.OUTCOME))
                  .isEqualTo("provision_failed");
            });
    assertThat(items)
        .anySatisfy(
            i -> {
              assertThat(i.getAttributes().get(ReaperTracing.CONFERENCE_ID))
                  .isEqualTo(poison.id.toString());
              assertThat(i.getAttributes().get(ReaperTracing.OUTCOME)).isEqualTo("failed");
              assertThat(i.getStatus().getStatusCode())
                  .isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR);
            });
  }

  @Test
  void with_tracing_disabled_the_cycle_writes_its_rows_without_trace_context() {
    ReaperTracing off = new ReaperTracing(OpenTelemetry.noop());
    Instant asOf = Instant.parse("2026-12-02T12:00:00Z");
    Rooms rooms = new Rooms(db.dataSource());
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    rooms.recording(room.id, "Recording", room.startedAt);

    new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            ConferenceRoomReaperOptions.defaults(),
            Clock.systemUTC(),
            off,
            off,
            List.of())
        .runOnce(asOf, Cancellation.NONE);

    assertThat(off.traceParent()).isNull();
    assertThat(
            rooms.query(
                "SELECT trace_parent FROM messenger.integration_outbox"
                    + " WHERE payload->>'conferenceId' = ?",
                room.id.toString()))
        .singleElement()
        .satisfies(row -> assertThat(row).containsEntry("trace_parent", null));
    assertThat(
            rooms.query(
                "SELECT trace_parent FROM messenger.recorder_stop_requests WHERE conference_id = ?",
                room.id))
        .singleElement()
        .satisfies(row -> assertThat(row).containsEntry("trace_parent", null));
  }

  @Test
  void a_cancelled_cycle_ends_its_span_marked_cancelled() {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();
    Instant asOf = Instant.parse("2026-12-02T11:00:00Z");
    new Rooms(db.dataSource()).insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    ConferenceRoomReaper reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            ConferenceRoomReaperOptions.defaults(),
            new ReaperTracing(otel),
            List.of());

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                reaper.runOnce(
                    asOf,
                    Cancellation.at(
                        Cancellation.Checkpoint.BEFORE_COMMIT,
                        pin.messenger.reaper.core.Phase.EMPTY_ROOM)))
        .isInstanceOf(java.util.concurrent.CancellationException.class);

    SpanData cycle =
        exporter.getFinishedSpanItems().stream()
            .filter(sp -> sp.getName().equals(ReaperTracing.CYCLE_SPAN))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the cancelled cycle's span was never ended"));
    assertThat(cycle.getAttributes().get(AttributeKey.booleanKey("reaper.cancelled"))).isTrue();
  }
}
