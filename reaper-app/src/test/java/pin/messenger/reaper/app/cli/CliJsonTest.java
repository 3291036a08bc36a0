package pin.messenger.reaper.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.CycleResult;

/** The documents the commands print on stdout, written by the one JSON writer (Jackson). */
class CliJsonTest {
  private static final CycleResult RESULT =
      new CycleResult(
          "run-42",
          Instant.parse("2025-03-14T23:30:00Z"),
          true,
          3,
          5,
          7,
          11,
          13,
          17,
          1234L,
          false,
          29);

  @Test
  void run_once_document_has_every_counter_then_the_delivery_figures_in_the_readme_order() {
    String json = CliJson.write(RunOnceDocument.of(RESULT).delivered(19, 23));

    assertThat(json)
        .isEqualTo(
            "{\"jobRunId\":\"run-42\",\"asOf\":\"2025-03-14T23:30:00Z\",\"lockAcquired\":true,"
                + "\"dryRun\":false,\"emptyTimeout\":3,\"provisionFailed\":5,\"staleTimeout\":7,"
                + "\"skippedLocked\":11,\"failed\":13,\"raceLost\":17,\"durationMs\":1234,"
                + "\"pausedPhases\":29,\"published\":19,\"recorderStopsDelivered\":23}");
  }

  @Test
  void run_once_document_without_a_delivery_pass_has_no_delivery_figures() {
    CycleResult dryRun =
        new CycleResult(
            "run-0", Instant.parse("2025-03-14T00:00:00Z"), false, 0, 0, 0, 0, 0, 0, 0L, true, 0);

    DocumentContext doc = JsonPath.parse(CliJson.write(RunOnceDocument.of(dryRun)));

    assertThat(doc.read("$.lockAcquired", Object.class)).isEqualTo(Boolean.FALSE);
    assertThat(doc.read("$.dryRun", Object.class)).isEqualTo(Boolean.TRUE);
    assertThat(doc.read("$.asOf", String.class)).isEqualTo("2025-03-14T00:00:00Z");
    assertThat(doc.read("$", Map.class)).doesNotContainKeys("published", "recorderStopsDelivered");
  }

  @Test
  void migrate_document_names_the_version_or_the_error_never_both() {
    assertThat(CliJson.write(new MigrateCommand.Document(true, "2", null)))
        .isEqualTo("{\"migrated\":true,\"schemaVersion\":\"2\"}");
    assertThat(CliJson.write(new MigrateCommand.Document(false, null, "refused")))
        .isEqualTo("{\"migrated\":false,\"error\":\"refused\"}");
  }

  @Test
  void an_error_with_quotes_backslashes_and_control_characters_stays_one_line_of_valid_json() {
    String message = "relation \"x\" does not exist\nat C:\\path\ttab \u0001";

    String json = CliJson.error(message);

    assertThat(json).doesNotContain("\n");
    assertThat(JsonPath.parse(json).read("$.error", String.class)).isEqualTo(message);
  }

  @Test
  void status_maps_keep_their_order_ids_and_instants_are_text_numbers_are_numbers() {
    UUID id = UUID.fromString("5b1f7c1e-0000-4000-8000-000000000001");
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", id);
    row.put("reaper_attempts", 3);
    row.put("reaper_next_attempt_at", Instant.parse("2025-03-14T23:30:00.5Z"));
    row.put("reaper_last_error", null);
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("poisonCount", 1L);
    status.put("poison", List.of(row));

    assertThat(CliJson.write(status))
        .isEqualTo(
            "{\"poisonCount\":1,\"poison\":[{\"id\":\"5b1f7c1e-0000-4000-8000-000000000001\","
                + "\"reaper_attempts\":3,\"reaper_next_attempt_at\":\"2025-03-14T23:30:00.500Z\","
                + "\"reaper_last_error\":null}]}");
  }
}
