package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.core.ConferenceStatus;
import pin.messenger.reaper.core.EndReason;

/** The conference-ended payload as written into the outbox row: the contract's bytes. */
class ConferenceEndedPayloadTest {

  private static final UUID CONFERENCE_ID = UUID.fromString("11111111-1111-1111-1111-111111111111");
  private static final UUID CHAT_ID = UUID.fromString("22222222-2222-2222-2222-222222222222");
  private static final UUID DEAL_ID = UUID.fromString("33333333-3333-3333-3333-333333333333");
  private static final UUID TENANT_ID = UUID.fromString("44444444-4444-4444-4444-444444444444");
  private static final UUID STARTER_ID = UUID.fromString("55555555-5555-5555-5555-555555555555");
  private static final UUID USER_1 = UUID.fromString("66666666-6666-6666-6666-666666666666");
  private static final UUID USER_2 = UUID.fromString("77777777-7777-7777-7777-777777777777");
  private static final UUID RECORDING_ID = UUID.fromString("88888888-8888-8888-8888-888888888888");

  /** Late in the UTC day: in any zone east of UTC this is already the next calendar day. */
  private static final Instant STARTED_AT = Instant.parse("2025-03-14T22:58:55Z");

  private static final Instant ENDED_AT = Instant.parse("2025-03-14T23:41:00Z");

  private static final List<String> CONTRACT_KEYS =
      List.of(
          "conferenceId",
          "chatId",
          "dealId",
          "tenantId",
          "mediaType",
          "status",
          "endReason",
          "startedByUserId",
          "startedAt",
          "endedAt",
          "durationSeconds",
          "peakParticipantCount",
          "participants",
          "wasRecorded",
          "recordingId");

  private TimeZone originalZone;

  @BeforeEach
  void useANonUtcDefaultZone() {
    originalZone = TimeZone.getDefault();
    TimeZone.setDefault(TimeZone.getTimeZone("Asia/Kolkata"));
  }

  @AfterEach
  void restoreTheDefaultZone() {
    TimeZone.setDefault(originalZone);
  }

  private static ConferenceEndedEvent event(UUID recordingId, List<UUID> participants) {
    return new ConferenceEndedEvent(
        CONFERENCE_ID,
        CHAT_ID,
        DEAL_ID,
        TENANT_ID,
        "Video",
        ConferenceStatus.Ended,
        EndReason.EmptyTimeout,
        STARTER_ID,
        STARTED_AT,
        ENDED_AT,
        2525L,
        4,
        participants,
        recordingId != null,
        recordingId);
  }

  private static ConferenceEndedEvent recordedEvent() {
    return event(RECORDING_ID, List.of(USER_2, USER_1));
  }

  /** The keys of the outermost JSON object, in the order they are written. */
  private static List<String> topLevelKeys(String json) {
    List<String> keys = new ArrayList<>();
    int depth = 0;
    boolean inString = false;
    StringBuilder current = null;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (inString) {
        if (c == '\\') {
          if (current != null) {
            current.append(json.charAt(i + 1));
          }
          i++;
        } else if (c == '"') {
          inString = false;
          if (current != null) {
            int j = i + 1;
            while (j < json.length() && Character.isWhitespace(json.charAt(j))) {
              j++;
            }
            if (j < json.length() && json.charAt(j) == ':') {
              keys.add(current.toString());
            }
            current = null;
          }
        } else if (current != null) {
          current.append(c);
        }
      } else if (c == '"') {
        inString = true;
        current = depth == 1 ? new StringBuilder() : null;
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        depth--;
      }
    }
    return keys;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // ConferenceEndedPayload.json(event)
  // ---------------------------------------------------------------------------------------------------------------

  @Test
  void json_has_exactly_the_contract_keys_in_contract_order() {
    String json = ConferenceEndedPayload.json(recordedEvent());

    assertThat(topLevelKeys(json)).containsExactlyElementsOf(CONTRACT_KEYS);
  }

  @Test
  void json_without_a_recording_still_has_every_key_in_order() {
    String json = ConferenceEndedPayload.json(event(null, List.of()));

    assertThat(topLevelKeys(json)).containsExactlyElementsOf(CONTRACT_KEYS);
  }

  @Test
  void json_carries_every_value_of_the_event() {
    DocumentContext doc = JsonPath.parse(ConferenceEndedPayload.json(recordedEvent()));

    assertThat(doc.read("$.conferenceId", String.class)).isEqualTo(CONFERENCE_ID.toString());
    assertThat(doc.read("$.chatId", String.class)).isEqualTo(CHAT_ID.toString());
    assertThat(doc.read("$.dealId", String.class)).isEqualTo(DEAL_ID.toString());
    assertThat(doc.read("$.tenantId", String.class)).isEqualTo(TENANT_ID.toString());
    assertThat(doc.read("$.mediaType", String.class)).isEqualTo("Video");
    assertThat(doc.read("$.status", String.class)).isEqualTo("Ended");
    assertThat(doc.read("$.endReason", String.class)).isEqualTo("EmptyTimeout");
    assertThat(doc.read("$.startedByUserId", String.class)).isEqualTo(STARTER_ID.toString());
    assertThat(doc.read("$.startedAt", String.class)).isEqualTo("2025-03-14T22:58:55Z");
    assertThat(doc.read("$.endedAt", String.class)).isEqualTo("2025-03-14T23:41:00Z");
    assertThat(doc.read("$.durationSeconds", Number.class).longValue()).isEqualTo(2525L);
    assertThat(doc.read("$.peakParticipantCount", Number.class).intValue()).isEqualTo(4);
    assertThat(doc.read("$.wasRecorded", Object.class)).isEqualTo(Boolean.TRUE);
    assertThat(doc.read("$.recordingId", String.class)).isEqualTo(RECORDING_ID.toString());
  }

  @Test
  void numbers_and_booleans_are_written_unquoted() {
    String json = ConferenceEndedPayload.json(recordedEvent());

    assertThat(json)
        .contains("\"durationSeconds\":2525")
        .contains("\"peakParticipantCount\":4")
        .contains("\"wasRecorded\":true");
  }

  @Test
  void participants_are_user_id_objects_in_roster_order() {
    DocumentContext doc = JsonPath.parse(ConferenceEndedPayload.json(recordedEvent()));

    List<Map<String, Object>> participants = doc.read("$.participants");
    assertThat(participants).hasSize(2);
    assertThat(participants.get(0))
        .containsOnlyKeys("userId")
        .containsEntry("userId", USER_2.toString());
    assertThat(participants.get(1))
        .containsOnlyKeys("userId")
        .containsEntry("userId", USER_1.toString());
  }

  @Test
  void an_empty_roster_is_an_empty_array() {
    DocumentContext doc = JsonPath.parse(ConferenceEndedPayload.json(event(null, List.of())));

    List<Object> participants = doc.read("$.participants");
    assertThat(participants).isEmpty();
  }

  @Test
  void a_conference_never_recorded_has_was_recorded_false_and_a_null_recording_id() {
    String json = ConferenceEndedPayload.json(event(null, List.of(USER_1)));
    DocumentContext doc = JsonPath.parse(json);

    assertThat(doc.read("$.wasRecorded", Object.class)).isEqualTo(Boolean.FALSE);
    assertThat(doc.read("$.recordingId", Object.class)).isNull();
    assertThat(json).contains("\"recordingId\":null");
  }

  @ParameterizedTest
  @ValueSource(strings = {"Asia/Kolkata", "America/Los_Angeles", "Pacific/Kiritimati", "UTC"})
  void instants_are_iso_8601_utc_ending_in_z_whatever_the_default_zone(String zone) {
    TimeZone.setDefault(TimeZone.getTimeZone(zone));

    DocumentContext doc = JsonPath.parse(ConferenceEndedPayload.json(recordedEvent()));

    assertThat(doc.read("$.startedAt", String.class)).isEqualTo("2025-03-14T22:58:55Z");
    assertThat(doc.read("$.endedAt", String.class)).isEqualTo("2025-03-14T23:41:00Z");
    assertThat(Instant.parse(doc.read("$.startedAt", String.class))).isEqualTo(STARTED_AT);
  }

  @Test
  void sub_second_instants_keep_their_fraction_and_stay_utc() {
    Instant startedAt = Instant.parse("2025-12-31T23:59:59.123456789Z");
    Instant endedAt = Instant.parse("2026-01-01T00:00:00.500Z");
    ConferenceEndedEvent e =
        new ConferenceEndedEvent(
            CONFERENCE_ID,
            CHAT_ID,
            DEAL_ID,
            TENANT_ID,
            "Audio",
            ConferenceStatus.Ended,
            EndReason.Timeout,
            STARTER_ID,
            startedAt,
            endedAt,
            0L,
            1,
            List.of(USER_1),
            false,
            null);

    DocumentContext doc = JsonPath.parse(ConferenceEndedPayload.json(e));

    assertThat(doc.read("$.startedAt", String.class)).isEqualTo("2025-12-31T23:59:59.123456789Z");
    assertThat(doc.read("$.endedAt", String.class)).isEqualTo("2026-01-01T00:00:00.500Z");
    assertThat(doc.read("$.endReason", String.class)).isEqualTo("Timeout");
  }

  @Test
  void a_null_started_by_user_or_tenant_is_written_as_null() {
    ConferenceEndedEvent e =
        new ConferenceEndedEvent(
            CONFERENCE_ID,
            CHAT_ID,
            DEAL_ID,
            null,
            "Video",
            ConferenceStatus.Ended,
            EndReason.Timeout,
            null,
            STARTED_AT,
            ENDED_AT,
            1L,
            1,
            List.of(),
            false,
            null);

    String json = ConferenceEndedPayload.json(e);

    assertThat(json).contains("\"tenantId\":null").contains("\"startedByUserId\":null");
    assertThat(topLevelKeys(json)).containsExactlyElementsOf(CONTRACT_KEYS);
  }

  @Test
  void strings_with_quotes_backslashes_and_control_characters_stay_valid_json() {
    String mediaType = "Vi\"de\\o\n\t\u0001";
    ConferenceEndedEvent e =
        new ConferenceEndedEvent(
            CONFERENCE_ID,
            CHAT_ID,
            DEAL_ID,
            TENANT_ID,
            mediaType,
            ConferenceStatus.Ended,
            EndReason.EmptyTimeout,
            STARTER_ID,
            STARTED_AT,
            ENDED_AT,
            1L,
            1,
            List.of(),
            false,
            null);

    DocumentContext doc = JsonPath.parse(ConferenceEndedPayload.json(e));

    assertThat(doc.read("$.mediaType", String.class)).isEqualTo(mediaType);
    assertThat(doc.read("$.dealId", String.class)).isEqualTo(DEAL_ID.toString());
  }

  @Test
  void the_payload_bytes_are_the_contract_bytes() {
    assertThat(ConferenceEndedPayload.json(recordedEvent()))
        .isEqualTo(
            "{\"conferenceId\":\"11111111-1111-1111-1111-111111111111\","
                + "\"chatId\":\"22222222-2222-2222-2222-222222222222\","
                + "\"dealId\":\"33333333-3333-3333-3333-333333333333\","
                + "\"tenantId\":\"44444444-4444-4444-4444-444444444444\","
                + "\"mediaType\":\"Video\",\"status\":\"Ended\",\"endReason\":\"EmptyTimeout\","
                + "\"startedByUserId\":\"55555555-5555-5555-5555-555555555555\","
                + "\"startedAt\":\"2025-03-14T22:58:55Z\",\"endedAt\":\"2025-03-14T23:41:00Z\","
                + "\"durationSeconds\":2525,\"peakParticipantCount\":4,"
                + "\"participants\":[{\"userId\":\"77777777-7777-7777-7777-777777777777\"},"
                + "{\"userId\":\"66666666-6666-6666-6666-666666666666\"}],"
                + "\"wasRecorded\":true,\"recordingId\":\"88888888-8888-8888-8888-888888888888\"}");
  }
}
