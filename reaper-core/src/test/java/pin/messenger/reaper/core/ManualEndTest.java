package pin.messenger.reaper.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/reaper end}'s decision: the reaper's own phase and transition, the backoff ignored,
 * and the operator asked only where the event cannot be built.
 */
class ManualEndTest {
  static final Instant AS_OF = Instant.parse("2026-12-02T10:00:00Z");
  static final ConferenceRoomReaperOptions OPTIONS = ConferenceRoomReaperOptions.defaults();
  static final UUID RECORDING = UUID.randomUUID();

  static ConferenceSession row(
      String status,
      Instant createdAt,
      Instant startedAt,
      Instant lastActivity,
      int participants,
      Instant backoff) {
    return new ConferenceSession(
        UUID.randomUUID(),
        UUID.randomUUID(),
        UUID.randomUUID(),
        UUID.randomUUID(),
        "Video",
        status,
        UUID.randomUUID(),
        createdAt,
        startedAt,
        lastActivity,
        participants,
        2,
        List.of(UUID.randomUUID()),
        RECORDING,
        List.of(RECORDING),
        backoff);
  }

  static ConferenceSession emptyRoom(Instant startedAt, Instant backoff) {
    Instant t = AS_OF.minus(Duration.ofMinutes(10));
    return row("Active", t, startedAt, t, 0, backoff);
  }

  @Test
  void a_due_empty_room_in_poison_backoff_is_ended_as_empty_room_would_with_its_event() {
    ConferenceSession s = emptyRoom(AS_OF.minusSeconds(600), AS_OF.plusSeconds(600));

    ManualEnd.Result r = ManualEnd.decide(s, AS_OF, OPTIONS, ManualEnd.Choice.NONE);

    assertThat(r).isInstanceOf(ManualEnd.Result.End.class);
    ManualEnd.Result.End end = (ManualEnd.Result.End) r;
    assertThat(end.phase()).isEqualTo(Phase.EMPTY_ROOM);
    assertThat(end.transition().to()).isEqualTo(ConferenceStatus.Ended);
    assertThat(end.transition().endReason()).isEqualTo(EndReason.EmptyTimeout);
    assertThat(end.transition().durationSeconds()).isEqualTo(600L);
    assertThat(end.transition().event()).isNotNull();
    assertThat(end.transition().recordingsToStop()).containsExactly(RECORDING);
  }

  @Test
  void a_meeting_without_started_at_needs_a_choice_and_each_choice_closes_it() {
    ConferenceSession s = emptyRoom(null, null);

    ManualEnd.Result asked = ManualEnd.decide(s, AS_OF, OPTIONS, ManualEnd.Choice.NONE);
    assertThat(asked).isInstanceOf(ManualEnd.Result.NeedsChoice.class);
    assertThat(((ManualEnd.Result.NeedsChoice) asked).reason())
        .contains("started_at is null")
        .contains("--started-at")
        .contains("--without-event");

    ManualEnd.Result.End without =
        (ManualEnd.Result.End)
            ManualEnd.decide(s, AS_OF, OPTIONS, new ManualEnd.Choice(null, true));
    assertThat(without.transition().event()).isNull();
    assertThat(without.transition().durationSeconds()).isNull();
    assertThat(without.transition().endReason()).isEqualTo(EndReason.EmptyTimeout);
    assertThat(without.transition().realtimeKind()).isEqualTo(Transition.REALTIME_ENDED);
    assertThat(without.transition().recordingsToStop()).containsExactly(RECORDING);

    ManualEnd.Result.End asserted =
        (ManualEnd.Result.End)
            ManualEnd.decide(
                s, AS_OF, OPTIONS, new ManualEnd.Choice(AS_OF.minusSeconds(120), false));
    assertThat(asserted.transition().durationSeconds()).isEqualTo(120L);
    assertThat(asserted.transition().event().startedAt()).isEqualTo(AS_OF.minusSeconds(120));
  }

  @Test
  void choices_are_refused_where_the_reaper_needs_none() {
    ConferenceSession s = emptyRoom(AS_OF.minusSeconds(600), null);

    assertThat(ManualEnd.decide(s, AS_OF, OPTIONS, new ManualEnd.Choice(null, true)))
        .isInstanceOf(ManualEnd.Result.Refused.class);
    assertThat(
            ManualEnd.decide(s, AS_OF, OPTIONS, new ManualEnd.Choice(AS_OF.minusSeconds(5), false)))
        .isInstanceOf(ManualEnd.Result.Refused.class);
    assertThatThrownBy(() -> new ManualEnd.Choice(AS_OF, true))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void a_live_meeting_a_terminal_row_and_a_fresh_provisioning_room_are_refused() {
    Instant recent = AS_OF.minusSeconds(5);
    assertThat(
            ManualEnd.decide(
                row("Active", recent, recent, recent, 3, null),
                AS_OF,
                OPTIONS,
                ManualEnd.Choice.NONE))
        .isInstanceOfSatisfying(
            ManualEnd.Result.Refused.class,
            r -> assertThat(r.reason()).contains("no phase would close it now"));
    assertThat(
            ManualEnd.decide(
                row("Ended", recent, recent, recent, 0, null),
                AS_OF,
                OPTIONS,
                ManualEnd.Choice.NONE))
        .isInstanceOfSatisfying(
            ManualEnd.Result.Refused.class, r -> assertThat(r.reason()).contains("already Ended"));
    assertThat(
            ManualEnd.decide(
                row("Provisioning", recent, null, recent, 0, null),
                AS_OF,
                OPTIONS,
                ManualEnd.Choice.NONE))
        .isInstanceOf(ManualEnd.Result.Refused.class);
  }

  @Test
  void an_old_provisioning_room_fails_as_provision_timeout_would_without_a_choice() {
    Instant old = AS_OF.minus(Duration.ofMinutes(10));
    ManualEnd.Result r =
        ManualEnd.decide(
            row("Provisioning", old, null, old, 0, null), AS_OF, OPTIONS, ManualEnd.Choice.NONE);

    assertThat(r)
        .isInstanceOfSatisfying(
            ManualEnd.Result.End.class,
            end -> {
              assertThat(end.phase()).isEqualTo(Phase.PROVISION_TIMEOUT);
              assertThat(end.transition().to()).isEqualTo(ConferenceStatus.Failed);
              assertThat(end.transition().event()).isNull();
              assertThat(end.transition().realtimeKind()).isEqualTo(Transition.REALTIME_FAILED);
            });
  }
}
