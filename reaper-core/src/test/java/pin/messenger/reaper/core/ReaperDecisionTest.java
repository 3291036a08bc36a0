package pin.messenger.reaper.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ReaperDecisionTest {

  private static final Instant AS_OF = Instant.parse("2025-03-14T12:00:00Z");
  private static final ConferenceRoomReaperOptions DEFAULTS =
      ConferenceRoomReaperOptions.defaults();

  /**
   * Non-default windows, to prove the decision reads them from the options rather than assuming the
   * defaults.
   */
  private static final ConferenceRoomReaperOptions CUSTOM =
      ConferenceRoomReaperOptions.builder()
          .emptyRoomGrace(Duration.ofSeconds(45))
          .provisionTimeout(Duration.ofMinutes(7))
          .staleLiveTimeout(Duration.ofMinutes(50))
          .build();

  private static final UUID CONFERENCE_ID = UUID.fromString("00000000-0000-0000-0000-00000000c0f1");
  private static final UUID CHAT_ID = UUID.fromString("00000000-0000-0000-0000-0000000c4a71");
  private static final UUID DEAL_ID = UUID.fromString("00000000-0000-0000-0000-0000000dea11");
  private static final UUID TENANT_ID = UUID.fromString("00000000-0000-0000-0000-00000007e4a4");
  private static final UUID STARTER_ID = UUID.fromString("00000000-0000-0000-0000-0000000057a2");
  private static final UUID USER_A = UUID.fromString("00000000-0000-0000-0000-00000000000a");
  private static final UUID USER_B = UUID.fromString("00000000-0000-0000-0000-00000000000b");
  private static final UUID USER_C = UUID.fromString("00000000-0000-0000-0000-00000000000c");
  private static final UUID RECORDING_LATEST =
      UUID.fromString("00000000-0000-0000-0000-0000000ec001");
  private static final UUID RECORDING_ACTIVE_1 =
      UUID.fromString("00000000-0000-0000-0000-0000000ec002");
  private static final UUID RECORDING_ACTIVE_2 =
      UUID.fromString("00000000-0000-0000-0000-0000000ec003");

  // ---------------------------------------------------------------------------------------------------------------
  // Fixtures
  // ---------------------------------------------------------------------------------------------------------------

  /**
   * A mutable recipe for a {@link ConferenceSession}; each phase has a due row as its starting
   * point.
   */
  private static final class Row {
    UUID id = CONFERENCE_ID;
    UUID chatId = CHAT_ID;
    UUID dealId = DEAL_ID;
    UUID tenantId = TENANT_ID;
    String mediaType = "Video";
    String status;
    UUID startedByUserId = STARTER_ID;
    Instant createdAt;
    Instant startedAt;
    Instant lastActivityAt;
    int activeParticipantCount;
    int peakParticipantCount = 3;
    List<UUID> participants = List.of(USER_B, USER_A, USER_C);
    UUID latestRecordingId;
    List<UUID> activeRecordingIds = List.of();
    Instant reaperNextAttemptAt;

    ConferenceSession build() {
      return new ConferenceSession(
          id,
          chatId,
          dealId,
          tenantId,
          mediaType,
          status,
          startedByUserId,
          createdAt,
          startedAt,
          lastActivityAt,
          activeParticipantCount,
          peakParticipantCount,
          participants,
          latestRecordingId,
          activeRecordingIds,
          reaperNextAttemptAt);
    }
  }

  /** A row of the phase's source status that is well past the phase's window at {@link #AS_OF}. */
  private static Row dueRow(Phase phase) {
    Row r = new Row();
    switch (phase) {
      case EMPTY_ROOM -> {
        r.status = "Active";
        r.createdAt = AS_OF.minus(Duration.ofMinutes(40));
        r.startedAt = AS_OF.minus(Duration.ofMinutes(39));
        r.lastActivityAt = AS_OF.minus(Duration.ofMinutes(10));
        r.activeParticipantCount = 0;
      }
      case STALE_LIVE -> {
        r.status = "Active";
        r.createdAt = AS_OF.minus(Duration.ofHours(9));
        r.startedAt = AS_OF.minus(Duration.ofHours(8));
        r.lastActivityAt = AS_OF.minus(Duration.ofHours(5));
        r.activeParticipantCount = 2;
      }
      case PROVISION_TIMEOUT -> {
        r.status = "Provisioning";
        r.createdAt = AS_OF.minus(Duration.ofMinutes(10));
        r.startedAt = null;
        r.lastActivityAt = null;
        r.activeParticipantCount = 0;
        r.peakParticipantCount = 0;
        r.participants = List.of();
      }
    }
    return r;
  }

  /** The window that decides whether a row is due in the phase. */
  private static Duration window(Phase phase, ConferenceRoomReaperOptions options) {
    return switch (phase) {
      case EMPTY_ROOM -> options.emptyRoomGrace();
      case PROVISION_TIMEOUT -> options.provisionTimeout();
      case STALE_LIVE -> options.staleLiveTimeout();
    };
  }

  /** Puts the phase's reference time (last_activity_at or created_at) at {@code referenceTime}. */
  private static Row dueRowWithReferenceTime(Phase phase, Instant referenceTime) {
    Row r = dueRow(phase);
    if (phase == Phase.PROVISION_TIMEOUT) {
      r.createdAt = referenceTime;
    } else {
      r.lastActivityAt = referenceTime;
      r.startedAt = referenceTime.minus(Duration.ofMinutes(5));
      r.createdAt = referenceTime.minus(Duration.ofMinutes(6));
    }
    return r;
  }

  private static Decision decide(Phase phase, Row row) {
    return ReaperDecision.decide(phase, row.build(), AS_OF, DEFAULTS);
  }

  private static Transition closed(Decision decision) {
    assertThat(decision).isInstanceOf(Decision.Close.class);
    return ((Decision.Close) decision).transition();
  }

  private static String poisonReason(Decision decision) {
    assertThat(decision).isInstanceOf(Decision.Poison.class);
    return ((Decision.Poison) decision).reason();
  }

  private static Stream<Arguments> phasesWithOptions() {
    List<Arguments> args = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      args.add(Arguments.of(phase, DEFAULTS));
      args.add(Arguments.of(phase, CUSTOM));
    }
    return args.stream();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The due row of each phase
  // ---------------------------------------------------------------------------------------------------------------

  @Test
  void empty_room_closes_a_due_row_active_to_ended_with_empty_timeout() {
    Row row = dueRow(Phase.EMPTY_ROOM);
    ConferenceSession session = row.build();

    Transition t = closed(ReaperDecision.decide(Phase.EMPTY_ROOM, session, AS_OF, DEFAULTS));

    assertThat(t.session()).isSameAs(session);
    assertThat(t.conferenceId()).isEqualTo(CONFERENCE_ID);
    assertThat(t.phase()).isEqualTo(Phase.EMPTY_ROOM);
    assertThat(t.from()).isEqualTo(ConferenceStatus.Active);
    assertThat(t.to()).isEqualTo(ConferenceStatus.Ended);
    assertThat(t.endReason()).isEqualTo(EndReason.EmptyTimeout);
    assertThat(t.endedAt()).isEqualTo(AS_OF);
    assertThat(t.durationSeconds()).isEqualTo(Duration.ofMinutes(39).toSeconds());
    assertThat(t.realtimeKind()).isEqualTo("ConferenceEnded").isEqualTo(Transition.REALTIME_ENDED);
    assertThat(t.event()).isNotNull();
  }

  @Test
  void stale_live_closes_a_due_row_active_to_ended_with_timeout() {
    Row row = dueRow(Phase.STALE_LIVE);
    ConferenceSession session = row.build();

    Transition t = closed(ReaperDecision.decide(Phase.STALE_LIVE, session, AS_OF, DEFAULTS));

    assertThat(t.session()).isSameAs(session);
    assertThat(t.conferenceId()).isEqualTo(CONFERENCE_ID);
    assertThat(t.phase()).isEqualTo(Phase.STALE_LIVE);
    assertThat(t.from()).isEqualTo(ConferenceStatus.Active);
    assertThat(t.to()).isEqualTo(ConferenceStatus.Ended);
    assertThat(t.endReason()).isEqualTo(EndReason.Timeout);
    assertThat(t.endedAt()).isEqualTo(AS_OF);
    assertThat(t.durationSeconds()).isEqualTo(Duration.ofHours(8).toSeconds());
    assertThat(t.realtimeKind()).isEqualTo("ConferenceEnded").isEqualTo(Transition.REALTIME_ENDED);
    assertThat(t.event()).isNotNull();
  }

  @Test
  void provision_timeout_closes_a_due_row_provisioning_to_failed_with_error_and_no_event() {
    Row row = dueRow(Phase.PROVISION_TIMEOUT);
    ConferenceSession session = row.build();

    Transition t = closed(ReaperDecision.decide(Phase.PROVISION_TIMEOUT, session, AS_OF, DEFAULTS));

    assertThat(t.session()).isSameAs(session);
    assertThat(t.conferenceId()).isEqualTo(CONFERENCE_ID);
    assertThat(t.phase()).isEqualTo(Phase.PROVISION_TIMEOUT);
    assertThat(t.from()).isEqualTo(ConferenceStatus.Provisioning);
    assertThat(t.to()).isEqualTo(ConferenceStatus.Failed);
    assertThat(t.endReason()).isEqualTo(EndReason.Error);
    assertThat(t.endedAt()).isEqualTo(AS_OF);
    assertThat(t.durationSeconds()).isNull();
    assertThat(t.event()).isNull();
    assertThat(t.realtimeKind())
        .isEqualTo("ConferenceFailed")
        .isEqualTo(Transition.REALTIME_FAILED);
  }

  @Test
  void provision_timeout_has_no_duration_even_when_started_at_is_set() {
    Row row = dueRow(Phase.PROVISION_TIMEOUT);
    row.startedAt = AS_OF.minus(Duration.ofMinutes(5));

    Transition t = closed(decide(Phase.PROVISION_TIMEOUT, row));

    assertThat(t.durationSeconds()).isNull();
    assertThat(t.event()).isNull();
  }

  @Test
  void provision_timeout_closes_a_row_without_started_at_last_activity_at_or_deal_id() {
    Row row = dueRow(Phase.PROVISION_TIMEOUT);
    row.startedAt = null;
    row.lastActivityAt = null;
    row.dealId = null;

    Transition t = closed(decide(Phase.PROVISION_TIMEOUT, row));

    assertThat(t.to()).isEqualTo(ConferenceStatus.Failed);
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void active_phases_raise_a_conference_ended_event_built_from_the_row(Phase phase) {
    Row row = dueRow(phase);
    row.mediaType = "Audio";
    row.peakParticipantCount = 7;
    row.latestRecordingId = RECORDING_LATEST;

    Transition t = closed(decide(phase, row));
    ConferenceEndedEvent e = t.event();

    assertThat(e).isNotNull();
    assertThat(e.conferenceId()).isEqualTo(CONFERENCE_ID);
    assertThat(e.chatId()).isEqualTo(CHAT_ID);
    assertThat(e.dealId()).isEqualTo(DEAL_ID);
    assertThat(e.tenantId()).isEqualTo(TENANT_ID);
    assertThat(e.mediaType()).isEqualTo("Audio");
    assertThat(e.status()).isEqualTo(ConferenceStatus.Ended);
    assertThat(e.endReason()).isEqualTo(phase.endReason()).isEqualTo(t.endReason());
    assertThat(e.startedByUserId()).isEqualTo(STARTER_ID);
    assertThat(e.startedAt()).isEqualTo(row.startedAt);
    assertThat(e.endedAt()).isEqualTo(AS_OF);
    assertThat(e.durationSeconds()).isEqualTo(t.durationSeconds());
    assertThat(e.peakParticipantCount()).isEqualTo(7);
    assertThat(e.participants()).containsExactly(USER_B, USER_A, USER_C);
    assertThat(e.wasRecorded()).isTrue();
    assertThat(e.recordingId()).isEqualTo(RECORDING_LATEST);
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void a_never_recorded_conference_ends_with_was_recorded_false_and_no_recording_id(Phase phase) {
    Row row = dueRow(phase);
    row.latestRecordingId = null;

    ConferenceEndedEvent e = closed(decide(phase, row)).event();

    assertThat(e.wasRecorded()).isFalse();
    assertThat(e.recordingId()).isNull();
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void an_event_of_a_conference_without_roster_has_no_participants(Phase phase) {
    Row row = dueRow(phase);
    row.participants = null;

    ConferenceEndedEvent e = closed(decide(phase, row)).event();

    assertThat(e.participants()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void every_phase_asks_to_stop_exactly_the_active_recordings(Phase phase) {
    Row row = dueRow(phase);
    row.latestRecordingId = RECORDING_LATEST;
    row.activeRecordingIds = List.of(RECORDING_ACTIVE_2, RECORDING_ACTIVE_1);

    Transition t = closed(decide(phase, row));

    assertThat(t.recordingsToStop()).containsExactly(RECORDING_ACTIVE_2, RECORDING_ACTIVE_1);
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void a_conference_without_active_recordings_has_nothing_to_stop(Phase phase) {
    Row row = dueRow(phase);
    row.latestRecordingId = RECORDING_LATEST;
    row.activeRecordingIds = List.of();

    Transition t = closed(decide(phase, row));

    assertThat(t.recordingsToStop()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void every_phase_moves_the_row_from_its_source_status_to_its_terminal_status(Phase phase) {
    Transition t = closed(decide(phase, dueRow(phase)));

    ConferenceStatus expectedFrom =
        phase == Phase.PROVISION_TIMEOUT ? ConferenceStatus.Provisioning : ConferenceStatus.Active;
    ConferenceStatus expectedTo =
        phase == Phase.PROVISION_TIMEOUT ? ConferenceStatus.Failed : ConferenceStatus.Ended;
    EndReason expectedReason =
        switch (phase) {
          case EMPTY_ROOM -> EndReason.EmptyTimeout;
          case PROVISION_TIMEOUT -> EndReason.Error;
          case STALE_LIVE -> EndReason.Timeout;
        };
    assertThat(t.from()).isEqualTo(expectedFrom);
    assertThat(t.to()).isEqualTo(expectedTo);
    assertThat(t.endReason()).isEqualTo(expectedReason);
    assertThat(t.endedAt()).isEqualTo(AS_OF);
  }

  @Test
  void stale_live_closes_a_room_that_still_counts_participants() {
    Row row = dueRow(Phase.STALE_LIVE);
    row.activeParticipantCount = 4;

    Transition t = closed(decide(Phase.STALE_LIVE, row));

    assertThat(t.endReason()).isEqualTo(EndReason.Timeout);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Duration
  // ---------------------------------------------------------------------------------------------------------------

  private static Stream<Arguments> durations() {
    return Stream.of(
        Arguments.of(Phase.EMPTY_ROOM, Duration.ofSeconds(600), 600L),
        Arguments.of(Phase.EMPTY_ROOM, Duration.ofSeconds(600).plusNanos(999_999_999), 600L),
        Arguments.of(Phase.EMPTY_ROOM, Duration.ofSeconds(600).plusMillis(500), 600L),
        Arguments.of(Phase.EMPTY_ROOM, Duration.ofSeconds(601).minusNanos(1), 600L),
        Arguments.of(Phase.EMPTY_ROOM, Duration.ofSeconds(601), 601L),
        Arguments.of(Phase.STALE_LIVE, Duration.ofHours(6).plusMillis(1), 21_600L),
        Arguments.of(Phase.STALE_LIVE, Duration.ofDays(3).plusSeconds(7).plusNanos(1), 259_207L));
  }

  @ParameterizedTest(name = "{0}: started {1} before asOf -> {2}s")
  @MethodSource("durations")
  void duration_is_whole_seconds_from_started_at_to_as_of_rounded_down(
      Phase phase, Duration startedAgo, long expectedSeconds) {
    Row row = dueRow(phase);
    row.startedAt = AS_OF.minus(startedAgo);
    row.createdAt = row.startedAt.minusSeconds(1);
    row.lastActivityAt = AS_OF.minus(window(phase, DEFAULTS)).minusSeconds(1);

    Transition t = closed(decide(phase, row));

    assertThat(t.durationSeconds()).isEqualTo(expectedSeconds);
    assertThat(t.event().durationSeconds()).isEqualTo(expectedSeconds);
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void a_conference_started_exactly_at_as_of_has_zero_duration(Phase phase) {
    Row row = dueRow(phase);
    row.startedAt = AS_OF;

    Transition t = closed(decide(phase, row));

    assertThat(t.durationSeconds()).isZero();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Boundary of the window
  // ---------------------------------------------------------------------------------------------------------------

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("phasesWithOptions")
  void a_row_exactly_at_the_cutoff_is_closed(Phase phase, ConferenceRoomReaperOptions options) {
    Instant cutoff = AS_OF.minus(window(phase, options));
    Row row = dueRowWithReferenceTime(phase, cutoff);

    Decision d = ReaperDecision.decide(phase, row.build(), AS_OF, options);

    assertThat(closed(d).to()).isEqualTo(phase.to());
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("phasesWithOptions")
  void a_row_one_nanosecond_after_the_cutoff_is_skipped(
      Phase phase, ConferenceRoomReaperOptions options) {
    Instant cutoff = AS_OF.minus(window(phase, options));
    Row row = dueRowWithReferenceTime(phase, cutoff.plusNanos(1));

    Decision d = ReaperDecision.decide(phase, row.build(), AS_OF, options);

    assertThat(d).isInstanceOf(Decision.Skip.class);
  }

  @Test
  void empty_room_exactly_at_the_grace_boundary_is_closed() {
    Row row = dueRowWithReferenceTime(Phase.EMPTY_ROOM, AS_OF.minusSeconds(90));

    assertThat(closed(decide(Phase.EMPTY_ROOM, row)).endReason()).isEqualTo(EndReason.EmptyTimeout);
  }

  @Test
  void empty_room_one_nanosecond_inside_the_grace_is_skipped() {
    Row row = dueRowWithReferenceTime(Phase.EMPTY_ROOM, AS_OF.minusSeconds(90).plusNanos(1));

    assertThat(decide(Phase.EMPTY_ROOM, row)).isInstanceOf(Decision.Skip.class);
  }

  @Test
  void provision_timeout_exactly_two_minutes_after_creation_is_closed() {
    Row row = dueRowWithReferenceTime(Phase.PROVISION_TIMEOUT, AS_OF.minus(Duration.ofMinutes(2)));

    assertThat(closed(decide(Phase.PROVISION_TIMEOUT, row)).endReason()).isEqualTo(EndReason.Error);
  }

  @Test
  void provision_timeout_one_nanosecond_before_two_minutes_is_skipped() {
    Row row =
        dueRowWithReferenceTime(
            Phase.PROVISION_TIMEOUT, AS_OF.minus(Duration.ofMinutes(2)).plusNanos(1));

    assertThat(decide(Phase.PROVISION_TIMEOUT, row)).isInstanceOf(Decision.Skip.class);
  }

  @Test
  void stale_live_exactly_four_hours_without_activity_is_closed() {
    Row row = dueRowWithReferenceTime(Phase.STALE_LIVE, AS_OF.minus(Duration.ofHours(4)));

    assertThat(closed(decide(Phase.STALE_LIVE, row)).endReason()).isEqualTo(EndReason.Timeout);
  }

  @Test
  void stale_live_one_nanosecond_short_of_four_hours_is_skipped() {
    Row row =
        dueRowWithReferenceTime(Phase.STALE_LIVE, AS_OF.minus(Duration.ofHours(4)).plusNanos(1));

    assertThat(decide(Phase.STALE_LIVE, row)).isInstanceOf(Decision.Skip.class);
  }

  @Test
  void empty_room_uses_the_configured_grace_not_the_default() {
    // 60 s of silence: past a 45 s grace, within the default 90 s grace.
    Row row = dueRowWithReferenceTime(Phase.EMPTY_ROOM, AS_OF.minusSeconds(60));

    assertThat(ReaperDecision.decide(Phase.EMPTY_ROOM, row.build(), AS_OF, CUSTOM))
        .isInstanceOf(Decision.Close.class);
    assertThat(ReaperDecision.decide(Phase.EMPTY_ROOM, row.build(), AS_OF, DEFAULTS))
        .isInstanceOf(Decision.Skip.class);
  }

  @Test
  void an_active_room_with_recent_activity_is_in_neither_active_phase() {
    Row row = dueRowWithReferenceTime(Phase.EMPTY_ROOM, AS_OF.minusSeconds(5));

    assertThat(decide(Phase.EMPTY_ROOM, row)).isInstanceOf(Decision.Skip.class);
    assertThat(decide(Phase.STALE_LIVE, row)).isInstanceOf(Decision.Skip.class);
  }

  @Test
  void an_empty_room_silent_past_the_grace_but_not_the_stale_timeout_is_only_empty_room_due() {
    Row row = dueRowWithReferenceTime(Phase.EMPTY_ROOM, AS_OF.minus(Duration.ofMinutes(30)));

    assertThat(decide(Phase.EMPTY_ROOM, row)).isInstanceOf(Decision.Close.class);
    assertThat(decide(Phase.STALE_LIVE, row)).isInstanceOf(Decision.Skip.class);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Skips
  // ---------------------------------------------------------------------------------------------------------------

  private static Stream<Arguments> terminalStatusesPerPhase() {
    List<Arguments> args = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      args.add(Arguments.of(phase, "Ended"));
      args.add(Arguments.of(phase, "Failed"));
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("terminalStatusesPerPhase")
  void a_terminal_conference_is_skipped(Phase phase, String terminalStatus) {
    Row row = dueRow(phase);
    row.status = terminalStatus;

    assertThat(decide(phase, row)).isInstanceOf(Decision.Skip.class);
  }

  private static Stream<Arguments> wrongStatusPerPhase() {
    return Stream.of(
        Arguments.of(Phase.EMPTY_ROOM, "Provisioning"),
        Arguments.of(Phase.STALE_LIVE, "Provisioning"),
        Arguments.of(Phase.PROVISION_TIMEOUT, "Active"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("wrongStatusPerPhase")
  void a_row_in_a_status_the_phase_does_not_close_is_skipped(Phase phase, String otherStatus) {
    // Otherwise due in every respect (all times set, long past every window).
    Row row = dueRow(phase);
    row.status = otherStatus;
    row.createdAt = AS_OF.minus(Duration.ofDays(2));
    row.startedAt = AS_OF.minus(Duration.ofDays(2));
    row.lastActivityAt = AS_OF.minus(Duration.ofDays(1));
    row.activeParticipantCount = 0;

    assertThat(decide(phase, row)).isInstanceOf(Decision.Skip.class);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 50})
  void empty_room_with_someone_in_it_is_skipped(int activeParticipants) {
    Row row = dueRow(Phase.EMPTY_ROOM);
    row.lastActivityAt = AS_OF.minus(Duration.ofHours(1));
    row.activeParticipantCount = activeParticipants;

    assertThat(decide(Phase.EMPTY_ROOM, row)).isInstanceOf(Decision.Skip.class);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Poison
  // ---------------------------------------------------------------------------------------------------------------

  private static Stream<Arguments> unknownStatusesPerPhase() {
    List<Arguments> args = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      for (String status : new String[] {"Closed", "active", "ACTIVE", "", " Active", null}) {
        args.add(Arguments.of(phase, status));
      }
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0} status=[{1}]")
  @MethodSource("unknownStatusesPerPhase")
  void an_unknown_status_is_poison_naming_the_status(Phase phase, String status) {
    Row row = dueRow(phase);
    row.status = status;

    String reason = poisonReason(decide(phase, row));

    // Quoted, so that the empty status too is an assertion that can fail.
    assertThat(reason).contains("unknown status '" + status + "'");
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void a_null_chat_id_is_poison_naming_chat_id(Phase phase) {
    Row row = dueRow(phase);
    row.chatId = null;

    assertThat(poisonReason(decide(phase, row))).contains("chat_id");
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void a_null_started_at_on_an_active_row_is_poison_naming_started_at(Phase phase) {
    Row row = dueRow(phase);
    row.startedAt = null;

    assertThat(poisonReason(decide(phase, row))).contains("started_at");
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void a_null_deal_id_on_an_active_row_is_poison_naming_deal_id(Phase phase) {
    Row row = dueRow(phase);
    row.dealId = null;

    assertThat(poisonReason(decide(phase, row))).contains("deal_id");
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void a_null_last_activity_at_on_an_active_row_is_poison_naming_last_activity_at(Phase phase) {
    Row row = dueRow(phase);
    row.lastActivityAt = null;

    assertThat(poisonReason(decide(phase, row))).contains("last_activity_at");
  }

  @Test
  void a_null_created_at_on_a_provisioning_row_is_poison_naming_created_at() {
    Row row = dueRow(Phase.PROVISION_TIMEOUT);
    row.createdAt = null;

    assertThat(poisonReason(decide(Phase.PROVISION_TIMEOUT, row))).contains("created_at");
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void a_started_at_after_as_of_is_poison_naming_started_at(Phase phase) {
    Row row = dueRow(phase);
    row.startedAt = AS_OF.plusNanos(1);

    String reason = poisonReason(decide(phase, row));

    assertThat(reason).contains("started_at").contains(AS_OF.plusNanos(1).toString());
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"EMPTY_ROOM", "STALE_LIVE"})
  void a_created_at_after_as_of_is_poison_naming_created_at(Phase phase) {
    Row row = dueRow(phase);
    row.createdAt = AS_OF.plusSeconds(1);

    String reason = poisonReason(decide(phase, row));

    assertThat(reason).contains("created_at").contains(AS_OF.plusSeconds(1).toString());
  }

  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"PROVISION_TIMEOUT", "STALE_LIVE"})
  void a_negative_participant_count_is_poison_naming_the_count(Phase phase) {
    Row row = dueRow(phase);
    row.activeParticipantCount = -1;

    String reason = poisonReason(decide(phase, row));

    assertThat(reason).contains("active_participant_count").contains("-1");
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, -7})
  void empty_room_with_a_negative_participant_count_is_poison_not_skip(int count) {
    // A count below zero is impossible data (a leave counted twice), not "someone is in the room".
    Row row = dueRow(Phase.EMPTY_ROOM);
    row.activeParticipantCount = count;

    String reason = poisonReason(decide(Phase.EMPTY_ROOM, row));

    assertThat(reason).contains("active_participant_count").contains(String.valueOf(count));
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void a_poison_row_still_backing_off_is_skipped_one_microsecond_before_its_retry(Phase phase) {
    Row row = dueRow(phase);
    row.reaperNextAttemptAt = AS_OF.plusNanos(1_000);

    assertThat(decide(phase, row)).isInstanceOf(Decision.Skip.class);
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void a_poison_row_whose_retry_is_due_exactly_at_as_of_is_closed(Phase phase) {
    Row row = dueRow(phase);
    row.reaperNextAttemptAt = AS_OF;

    assertThat(decide(phase, row)).isInstanceOf(Decision.Close.class);
  }
}
