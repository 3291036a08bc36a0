package pin.messenger.reaper.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The event itself; its wire form is ConferenceEndedPayloadTest's (reaper-postgres). */
class ConferenceEndedEventTest {

  private static final UUID CONFERENCE_ID = UUID.fromString("11111111-1111-1111-1111-111111111111");
  private static final UUID CHAT_ID = UUID.fromString("22222222-2222-2222-2222-222222222222");
  private static final UUID DEAL_ID = UUID.fromString("33333333-3333-3333-3333-333333333333");
  private static final UUID TENANT_ID = UUID.fromString("44444444-4444-4444-4444-444444444444");
  private static final UUID STARTER_ID = UUID.fromString("55555555-5555-5555-5555-555555555555");
  private static final UUID USER_1 = UUID.fromString("66666666-6666-6666-6666-666666666666");
  private static final UUID USER_2 = UUID.fromString("77777777-7777-7777-7777-777777777777");

  /** Late in the UTC day: in any zone east of UTC this is already the next calendar day. */
  private static final Instant STARTED_AT = Instant.parse("2025-03-14T22:58:55Z");

  private static final Instant ENDED_AT = Instant.parse("2025-03-14T23:41:00Z");

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

  @Test
  void the_event_keeps_its_own_copy_of_the_participants() {
    List<UUID> roster = new ArrayList<>(List.of(USER_1));
    ConferenceEndedEvent e = event(null, roster);

    roster.add(USER_2);

    assertThat(e.participants()).containsExactly(USER_1);
  }

  @Test
  void the_topic_and_event_type_are_the_contract_names() {
    assertThat(ConferenceEndedEvent.TOPIC).isEqualTo("pin.messenger.conference-ended.v1");
    assertThat(ConferenceEndedEvent.EVENT_TYPE).isEqualTo("conference-ended.v1");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // CycleResult (its JSON is the CLI's: CliJsonTest in reaper-app)
  // ---------------------------------------------------------------------------------------------------------------

  @Test
  void cycle_result_reaped_is_the_sum_of_the_three_close_counters() {
    CycleResult result =
        new CycleResult("run", Instant.EPOCH, true, 3, 5, 7, 11, 13, 17, 0L, false, 0);

    assertThat(result.reaped()).isEqualTo(15);
  }
}
