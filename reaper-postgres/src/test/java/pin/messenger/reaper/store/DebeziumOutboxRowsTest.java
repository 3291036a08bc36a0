package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ManualEnd;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.OperatorActions.Request;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * {@code reaper.outbox.mode=debezium} on the real schema: the transition's event goes to Debezium's
 * outbox table with every header column as the relay would send it, is deleted again before commit,
 * and nothing goes to the relay's table. What the transaction inserted is seen through a trigger of
 * the test's own that copies each insert aside (as the WAL keeps it for Debezium).
 */
class DebeziumOutboxRowsTest extends DatabaseTest {
  static final String SOURCE = "/test/o'source";
  final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();

  @BeforeEach
  void captureInserts() {
    rooms.exec(
        "CREATE TABLE IF NOT EXISTS public.captured AS SELECT * FROM "
            + DebeziumOutboxRows.TABLE
            + " WITH NO DATA");
    rooms.exec("TRUNCATE public.captured");
    rooms.exec(
        """
        CREATE OR REPLACE FUNCTION public.capture() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO public.captured SELECT NEW.*; RETURN NEW; END $$""");
    rooms.exec("DROP TRIGGER IF EXISTS capture ON " + DebeziumOutboxRows.TABLE);
    rooms.exec(
        "CREATE TRIGGER capture AFTER INSERT ON "
            + DebeziumOutboxRows.TABLE
            + " FOR EACH ROW EXECUTE FUNCTION public.capture()");
  }

  PostgresReaperStore store() {
    return new PostgresReaperStore(
        db.dataSource(), new OutboxOptions(OutboxOptions.Mode.DEBEZIUM), SOURCE);
  }

  @ParameterizedTest(name = "closed at {0}")
  @ValueSource(
      strings = {
        "2026-12-02T10:00:00Z",
        "2026-12-02T10:00:00.5Z",
        "2026-12-02T10:00:00.123Z",
        "2026-12-02T10:00:00.000001Z",
        "2026-12-02T10:00:00.1234Z"
      })
  void a_reaped_room_writes_the_relays_record_into_debeziums_layout_and_keeps_no_row(String at)
      throws Exception {
    Instant asOf = Instant.parse(at);
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(600)));
    String traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    var cycle =
        new ConferenceRoomReaper(
                store(),
                options,
                java.time.Clock.systemUTC(),
                ReaperObserver.NONE,
                () -> traceParent,
                List.of())
            .runOnce(asOf, Cancellation.NONE);

    assertThat(rooms.status(room.id)).isEqualTo("Ended");
    assertThat(rooms.count("SELECT count(*) FROM " + DebeziumOutboxRows.TABLE)).isZero();
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isZero();
    assertThat(rooms.count("SELECT count(*) FROM messenger.realtime_outbox")).isEqualTo(1);
    List<Map<String, Object>> rows = rooms.query("SELECT *, payload::text AS json FROM captured");
    assertThat(rows).hasSize(1);
    Map<String, Object> row = rows.get(0);
    assertThat(row.get("aggregatetype")).isEqualTo(ConferenceEndedEvent.TOPIC);
    assertThat(row.get("aggregateid")).isEqualTo(room.dealId.toString());
    assertThat(row.get("type")).isEqualTo("pin.messenger.conference-ended.v1");
    assertThat(row.get("ce_type")).isEqualTo("pin.messenger.conference-ended.v1");
    assertThat(row.get("ce_specversion")).isEqualTo("1.0");
    assertThat(row.get("ce_source")).isEqualTo(SOURCE);
    // ce_time as the relay formats occurred_at: ISO_INSTANT, fraction in groups of 3 digits.
    assertThat(row.get("ce_time")).isEqualTo(DateTimeFormatter.ISO_INSTANT.format(asOf));
    assertThat(row.get("ce_subject")).isEqualTo(room.id.toString());
    assertThat(row.get("ce_dataschema")).isEqualTo(ConferenceEndedEvent.DATA_SCHEMA);
    assertThat(row.get("ce_correlationid")).isEqualTo(cycle.jobRunId());
    assertThat(row.get("ce_traceparent")).isEqualTo(traceParent);
    assertThat(row.get("tracingspancontext")).isEqualTo("traceparent=" + traceParent);
    assertThat(row.get("content_type")).isEqualTo("application/json");
    assertThat((String) row.get("json")).contains("\"endedAt\": \"" + asOf + "\"");
  }

  @Test
  void a_cycle_without_trace_context_writes_no_tracing_column() {
    Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
    rooms.insert(Rooms.emptyActive(asOf.minusSeconds(600)));

    new ConferenceRoomReaper(store(), options, ReaperObserver.NONE, List.of())
        .runOnce(asOf, Cancellation.NONE);

    Map<String, Object> row = rooms.query("SELECT * FROM captured").get(0);
    assertThat(row.get("ce_traceparent")).isNull();
    assertThat(row.get("tracingspancontext")).isNull();
  }

  @Test
  void the_operators_end_writes_into_debeziums_table_too() throws Exception {
    Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
    Room room = Rooms.emptyActive(asOf.minusSeconds(600));
    room.startedAt = null;
    rooms.insert(room);
    Request request =
        new Request(
            OperatorAction.END,
            "alice",
            asOf,
            "poison room",
            Map.of("conferenceId", room.id.toString(), "correlationId", "operator-end-test"),
            true);

    OperatorActions.Outcome closed =
        new OperatorEnd(db.dataSource(), store())
            .end(request, room.id, new ManualEnd.Choice(asOf.minusSeconds(900), false), options);

    assertThat(closed.result()).isEqualTo(OperatorActions.Result.APPLIED);
    assertThat(rooms.count("SELECT count(*) FROM " + DebeziumOutboxRows.TABLE)).isZero();
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isZero();
    List<Map<String, Object>> rows = rooms.query("SELECT * FROM captured");
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).get("ce_correlationid")).isEqualTo("operator-end-test");
    assertThat(rows.get(0).get("ce_subject")).isEqualTo(room.id.toString());
    assertThat(rows.get(0).get("id")).isInstanceOf(UUID.class);
  }

  @Test
  void the_schema_check_names_debeziums_table_only_in_debezium_mode() {
    rooms.exec("ALTER TABLE " + DebeziumOutboxRows.TABLE + " RENAME COLUMN ce_time TO ce_when");
    try {
      assertThat(SchemaVerifier.missing(db.dataSource())).isEmpty();
      assertThat(
              SchemaVerifier.missing(
                  db.dataSource(), new OutboxOptions(OutboxOptions.Mode.DEBEZIUM)))
          .containsExactly("messenger.integration_outbox_debezium.ce_time");
    } finally {
      rooms.exec("ALTER TABLE " + DebeziumOutboxRows.TABLE + " RENAME COLUMN ce_when TO ce_time");
    }
  }
}
