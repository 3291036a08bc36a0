package pin.messenger.reaper.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pin.messenger.reaper.store.ConferenceEndedPayload;
import pin.messenger.reaper.testing.ContractSchema;

/** The published schema accepts what the reaper writes and rejects what breaks the contract. */
class ContractSchemaTest {
  static final Instant START = Instant.parse("2026-12-02T09:00:00Z");

  static ConferenceEndedEvent event(EndReason reason, List<UUID> participants, UUID recordingId) {
    return new ConferenceEndedEvent(
        UUID.randomUUID(),
        UUID.randomUUID(),
        UUID.randomUUID(),
        UUID.randomUUID(),
        "Audio",
        ConferenceStatus.Ended,
        reason,
        UUID.randomUUID(),
        START,
        START.plusSeconds(754),
        754,
        3,
        participants,
        recordingId != null,
        recordingId);
  }

  @Test
  void every_shape_of_payload_the_reaper_writes_is_valid() {
    ContractSchema.assertValid(
        ConferenceEndedPayload.json(event(EndReason.EmptyTimeout, List.of(), null)));
    ContractSchema.assertValid(
        ConferenceEndedPayload.json(
            event(
                EndReason.Timeout,
                List.of(UUID.randomUUID(), UUID.randomUUID()),
                UUID.randomUUID())));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"status\":\"Ended\"=>\"status\":\"Failed\"",
        "\"mediaType\":\"Audio\"=>\"mediaType\":\"Screen\"",
        "\"endedAt\":\"2026-12-02T09:12:34Z\"=>\"endedAt\":\"2026-12-02T12:12:34+03:00\"",
        "\"durationSeconds\":754=>\"durationSeconds\":-1",
        "\"wasRecorded\":false=>\"wasRecorded\":true",
        "\"participants\":[]=>\"participants\":[{\"userId\":\"x\",\"name\":\"Ann\"}]",
        "{\"conferenceId\"=>{\"userName\":\"Ann\",\"conferenceId\""
      })
  void payloads_that_break_the_contract_are_rejected(String edit) {
    String[] fromTo = edit.split("=>");
    String valid = ConferenceEndedPayload.json(event(EndReason.EmptyTimeout, List.of(), null));
    assertThat(valid).contains(fromTo[0]);

    assertThat(ContractSchema.violations(valid.replace(fromTo[0], fromTo[1]))).isNotEmpty();
  }

  @Test
  void the_dataschema_the_relay_sends_is_the_published_schemas_id() throws Exception {
    JsonNode schema = new ObjectMapper().readTree(ContractSchema.SCHEMA.toFile());

    assertThat(schema.get("$id").asText()).isEqualTo(ConferenceEndedEvent.DATA_SCHEMA);
  }

  @Test
  void a_payload_without_the_deal_id_is_rejected() {
    String valid = ConferenceEndedPayload.json(event(EndReason.EmptyTimeout, List.of(), null));
    String withoutDeal = valid.replaceFirst("\"dealId\":\"[^\"]+\",", "");

    assertThat(ContractSchema.violations(withoutDeal)).isNotEmpty();
  }
}
