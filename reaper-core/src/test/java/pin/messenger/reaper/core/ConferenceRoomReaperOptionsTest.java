package pin.messenger.reaper.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ConferenceRoomReaperOptionsTest {

  /** One duration option: its property name and how to set it on a builder. */
  private record DurationOption(
      String property,
      BiFunction<ReaperOptionsBuilder, Duration, ReaperOptionsBuilder> set,
      Function<ConferenceRoomReaperOptions, Duration> get) {
    @Override
    public String toString() {
      return property;
    }
  }

  private static final List<DurationOption> REQUIRED_POSITIVE_DURATIONS =
      List.of(
          new DurationOption(
              "reaper.polling-interval",
              ReaperOptionsBuilder::pollingInterval,
              ConferenceRoomReaperOptions::pollingInterval),
          new DurationOption(
              "reaper.empty-room-grace",
              ReaperOptionsBuilder::emptyRoomGrace,
              ConferenceRoomReaperOptions::emptyRoomGrace),
          new DurationOption(
              "reaper.provision-timeout",
              ReaperOptionsBuilder::provisionTimeout,
              ConferenceRoomReaperOptions::provisionTimeout),
          new DurationOption(
              "reaper.stale-live-timeout",
              ReaperOptionsBuilder::staleLiveTimeout,
              ConferenceRoomReaperOptions::staleLiveTimeout),
          new DurationOption(
              "reaper.lock-ttl",
              ReaperOptionsBuilder::lockTtl,
              ConferenceRoomReaperOptions::lockTtl),
          new DurationOption(
              "reaper.max-run-duration",
              ReaperOptionsBuilder::maxRunDuration,
              ConferenceRoomReaperOptions::maxRunDuration),
          new DurationOption(
              "reaper.statement-timeout",
              ReaperOptionsBuilder::statementTimeout,
              ConferenceRoomReaperOptions::statementTimeout));

  private static InvalidOptionsException invalid(ReaperOptionsBuilder builder) {
    InvalidOptionsException e = catchThrowableOfType(InvalidOptionsException.class, builder::build);
    assertThat(e).as("expected InvalidOptionsException").isNotNull();
    return e;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Defaults
  // ---------------------------------------------------------------------------------------------------------------

  @Test
  void defaults_equal_the_spec() {
    ConferenceRoomReaperOptions o = ConferenceRoomReaperOptions.defaults();

    assertThat(o.pollingInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.emptyRoomGrace()).isEqualTo(Duration.ofSeconds(90));
    assertThat(o.provisionTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(o.staleLiveTimeout()).isEqualTo(Duration.ofHours(4));
    assertThat(o.batchSize()).isEqualTo(100);
    assertThat(o.lockTtl()).isEqualTo(Duration.ofMinutes(2));
    assertThat(o.maxRunDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.statementTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(o.enabled()).isTrue();
    assertThat(o.drain().enabled()).isFalse();
    assertThat(o.drain().pause()).isEqualTo(Duration.ofMillis(50));
    assertThat(o.clock()).isEqualTo(ClockSource.SYSTEM);
    assertThat(o.schedule()).isEqualTo(Schedule.NEXT_DUE);
    assertThat(o.nextDue().coalesce()).isEqualTo(Duration.ofMillis(200));
    assertThat(o.nextDue().minGap()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void the_next_due_delays_are_validated_naming_property_and_value() {
    InvalidOptionsException e =
        invalid(
            ConferenceRoomReaperOptions.builder()
                .nextDueCoalesce(Duration.ofMillis(-1))
                .nextDueMinGap(null));
    assertThat(e.getMessage())
        .contains("reaper.next-due.coalesce must be zero or positive but was PT-0.001S")
        .contains("reaper.next-due.min-gap is required but was null");
    assertThat(invalid(ConferenceRoomReaperOptions.builder().schedule(null)).getMessage())
        .contains("reaper.schedule is required (fixed or next-due) but was null");
  }

  @Test
  void next_due_warns_when_the_polling_interval_is_not_below_the_shortest_window() {
    assertThat(ConferenceRoomReaperOptions.defaults().nextDuePrecisionWarning()).isEmpty();
    ConferenceRoomReaperOptions slow =
        ConferenceRoomReaperOptions.builder()
            .schedule(Schedule.NEXT_DUE)
            .pollingInterval(Duration.ofSeconds(100))
            .lockTtl(Duration.ofMinutes(5))
            .build();
    assertThat(slow.nextDuePrecisionWarning())
        .hasValueSatisfying(
            w ->
                assertThat(w).contains("shortest window (PT1M30S)").contains("up to PT10.2S late"));
    assertThat(slow.toBuilder().schedule(Schedule.FIXED).build().nextDuePrecisionWarning())
        .isEmpty();
  }

  @Test
  void a_fresh_builder_builds_the_defaults() {
    assertThat(ConferenceRoomReaperOptions.builder().build())
        .isEqualTo(ConferenceRoomReaperOptions.defaults());
  }

  @Test
  void to_builder_round_trips_every_value() {
    ConferenceRoomReaperOptions custom =
        ConferenceRoomReaperOptions.builder()
            .pollingInterval(Duration.ofSeconds(7))
            .emptyRoomGrace(Duration.ofSeconds(11))
            .provisionTimeout(Duration.ofSeconds(13))
            .staleLiveTimeout(Duration.ofMinutes(17))
            .batchSize(19)
            .lockTtl(Duration.ofMinutes(23))
            .maxRunDuration(Duration.ofMinutes(3))
            .statementTimeout(Duration.ofSeconds(29))
            .enabled(false)
            .drainEnabled(true)
            .drainPause(Duration.ofMillis(31))
            .clock(ClockSource.DATABASE)
            .schedule(Schedule.FIXED)
            .nextDueCoalesce(Duration.ofMillis(37))
            .nextDueMinGap(Duration.ofMillis(41))
            .build();

    assertThat(custom.toBuilder().build())
        .isEqualTo(custom)
        .isNotEqualTo(ConferenceRoomReaperOptions.defaults());
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Duration options
  // ---------------------------------------------------------------------------------------------------------------

  private static Stream<Arguments> nonPositiveDurations() {
    List<Arguments> args = new ArrayList<>();
    for (DurationOption option : REQUIRED_POSITIVE_DURATIONS) {
      args.add(Arguments.of(option, Duration.ZERO));
      args.add(Arguments.of(option, Duration.ofSeconds(-5)));
      args.add(Arguments.of(option, Duration.ofNanos(-1)));
      args.add(
          Arguments.of(option, Duration.ofNanos(999_999))); // below PostgreSQL's 1 ms resolution
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0} = {1}")
  @MethodSource("nonPositiveDurations")
  void a_zero_negative_or_sub_millisecond_duration_is_rejected_naming_property_and_value(
      DurationOption option, Duration bad) {
    InvalidOptionsException e =
        invalid(option.set().apply(ConferenceRoomReaperOptions.builder(), bad));

    assertThat(e.getMessage()).contains(option.property()).contains(bad.toString());
    assertThat(e.violations())
        .anySatisfy(v -> assertThat(v).contains(option.property()).contains(bad.toString()));
  }

  private static Stream<DurationOption> durationOptions() {
    return REQUIRED_POSITIVE_DURATIONS.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("durationOptions")
  void a_missing_duration_is_rejected_naming_the_property(DurationOption option) {
    InvalidOptionsException e =
        invalid(option.set().apply(ConferenceRoomReaperOptions.builder(), null));

    assertThat(e.getMessage()).contains(option.property());
    assertThat(e.violations()).hasSize(1);
    assertThat(e.violations().get(0))
        .startsWith(option.property())
        .satisfiesAnyOf(
            v -> assertThat(v).contains("null"), v -> assertThat(v).contains("required"));
  }

  private static Stream<DurationOption> durationOptionsWithoutALowerCrossBound() {
    // lock-ttl must exceed max-run-duration and stale-live-timeout must exceed empty-room-grace,
    // both at least 1 ms.
    return REQUIRED_POSITIVE_DURATIONS.stream()
        .filter(
            o ->
                !o.property().equals("reaper.lock-ttl")
                    && !o.property().equals("reaper.stale-live-timeout"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("durationOptionsWithoutALowerCrossBound")
  void one_millisecond_is_an_accepted_duration(DurationOption option) {
    // statement-timeout must not exceed max-run-duration, so it shrinks with it.
    ReaperOptionsBuilder b =
        ConferenceRoomReaperOptions.builder().statementTimeout(Duration.ofMillis(1));

    ConferenceRoomReaperOptions built = option.set().apply(b, Duration.ofMillis(1)).build();

    assertThat(option.get().apply(built)).isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void the_smallest_lock_ttl_and_stale_live_timeout_are_one_millisecond_above_their_counterparts() {
    // lock-ttl > max-run-duration (1 ms) and > 4 × statement-timeout (4 ms): 5 ms.
    ConferenceRoomReaperOptions o =
        ConferenceRoomReaperOptions.builder()
            .statementTimeout(Duration.ofMillis(1))
            .maxRunDuration(Duration.ofMillis(1))
            .lockTtl(Duration.ofMillis(5))
            .emptyRoomGrace(Duration.ofMillis(1))
            .staleLiveTimeout(Duration.ofMillis(2))
            .build();

    assertThat(o.lockTtl()).isEqualTo(Duration.ofMillis(5));
    assertThat(o.staleLiveTimeout()).isEqualTo(Duration.ofMillis(2));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Batch size
  // ---------------------------------------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 10_001, Integer.MIN_VALUE, Integer.MAX_VALUE})
  void a_batch_size_outside_1_to_10000_is_rejected_naming_property_and_value(int bad) {
    InvalidOptionsException e = invalid(ConferenceRoomReaperOptions.builder().batchSize(bad));

    assertThat(e.getMessage()).contains("reaper.batch-size").contains(String.valueOf(bad));
    assertThat(e.violations())
        .singleElement()
        .asString()
        .contains("reaper.batch-size")
        .contains(String.valueOf(bad));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 100, 10_000})
  void a_batch_size_from_1_to_10000_is_accepted(int good) {
    assertThat(ConferenceRoomReaperOptions.builder().batchSize(good).build().batchSize())
        .isEqualTo(good);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Cross-checks
  // ---------------------------------------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"PT2M", "PT2M0.001S", "PT10M"})
  void a_max_run_duration_not_shorter_than_the_lock_ttl_is_rejected(String maxRun) {
    Duration bad = Duration.parse(maxRun);

    InvalidOptionsException e =
        invalid(
            ConferenceRoomReaperOptions.builder()
                .lockTtl(Duration.ofMinutes(2))
                .maxRunDuration(bad));

    assertThat(e.violations())
        .singleElement()
        .asString()
        .contains("reaper.max-run-duration")
        .contains("reaper.lock-ttl")
        .contains(bad.toString());
  }

  @Test
  void a_max_run_duration_just_under_the_lock_ttl_is_accepted() {
    Duration maxRun = Duration.ofMinutes(2).minusMillis(1);

    assertThat(
            ConferenceRoomReaperOptions.builder().maxRunDuration(maxRun).build().maxRunDuration())
        .isEqualTo(maxRun);
  }

  @ParameterizedTest
  @ValueSource(strings = {"PT4H", "PT4H0.001S", "PT24H"})
  void an_empty_room_grace_not_shorter_than_the_stale_live_timeout_is_rejected(String grace) {
    Duration bad = Duration.parse(grace);

    InvalidOptionsException e = invalid(ConferenceRoomReaperOptions.builder().emptyRoomGrace(bad));

    assertThat(e.violations())
        .singleElement()
        .asString()
        .contains("reaper.empty-room-grace")
        .contains("reaper.stale-live-timeout")
        .contains(bad.toString());
  }

  @Test
  void an_empty_room_grace_just_under_the_stale_live_timeout_is_accepted() {
    Duration grace = Duration.ofHours(4).minusMillis(1);

    assertThat(ConferenceRoomReaperOptions.builder().emptyRoomGrace(grace).build().emptyRoomGrace())
        .isEqualTo(grace);
  }

  @ParameterizedTest
  @ValueSource(strings = {"PT30.001S", "PT31S", "PT1M"})
  void a_statement_timeout_longer_than_the_max_run_duration_is_rejected(String statement) {
    Duration bad = Duration.parse(statement);

    InvalidOptionsException e =
        invalid(
            ConferenceRoomReaperOptions.builder()
                .lockTtl(Duration.ofMinutes(10))
                .statementTimeout(bad));

    assertThat(e.violations())
        .singleElement()
        .asString()
        .contains("reaper.statement-timeout")
        .contains("reaper.max-run-duration")
        .contains(bad.toString());
  }

  @Test
  void a_statement_timeout_equal_to_the_max_run_duration_is_accepted() {
    assertThat(
            ConferenceRoomReaperOptions.builder()
                .lockTtl(Duration.ofMinutes(3))
                .statementTimeout(Duration.ofSeconds(30))
                .build()
                .statementTimeout())
        .isEqualTo(Duration.ofSeconds(30));
  }

  @ParameterizedTest
  @ValueSource(strings = {"PT30S", "PT29S"})
  void four_statement_timeouts_must_end_before_the_lock_ttl(String statement) {
    // lock-ttl 2m (default): 4 × 30 s = 2 m is too long, 4 × 29 s = 1m56s fits.
    ReaperOptionsBuilder b =
        ConferenceRoomReaperOptions.builder().statementTimeout(Duration.parse(statement));
    if (statement.equals("PT29S")) {
      assertThat(b.build().statementTimeout()).isEqualTo(Duration.ofSeconds(29));
      return;
    }
    assertThat(invalid(b).violations())
        .singleElement()
        .asString()
        .contains("reaper.statement-timeout × 4")
        .contains("reaper.lock-ttl (PT2M)")
        .contains("PT30S");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Drain pause
  // ---------------------------------------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"PT-0.001S", "PT-1S", "PT-0.000000001S"})
  void a_negative_drain_pause_is_rejected_naming_property_and_value(String pause) {
    Duration bad = Duration.parse(pause);

    InvalidOptionsException e = invalid(ConferenceRoomReaperOptions.builder().drainPause(bad));

    assertThat(e.getMessage()).contains("reaper.drain.pause").contains(bad.toString());
    assertThat(e.violations())
        .singleElement()
        .asString()
        .contains("reaper.drain.pause")
        .contains(bad.toString());
  }

  @Test
  void a_missing_clock_is_rejected_naming_the_property() {
    InvalidOptionsException e = invalid(ConferenceRoomReaperOptions.builder().clock(null));

    assertThat(e.violations()).singleElement().asString().contains("reaper.clock").contains("null");
  }

  @Test
  void the_effective_options_line_names_the_clock() {
    assertThat(ConferenceRoomReaperOptions.defaults().describe())
        .contains(" clock=system ")
        .endsWith(" schedule=next-due nextDueCoalesce=PT0.2S nextDueMinGap=PT1S");
    assertThat(ConferenceRoomReaperOptions.builder().clock(ClockSource.DATABASE).build().describe())
        .contains(" clock=database ");
  }

  @Test
  void a_missing_drain_pause_is_rejected_naming_the_property() {
    InvalidOptionsException e = invalid(ConferenceRoomReaperOptions.builder().drainPause(null));

    assertThat(e.violations())
        .singleElement()
        .asString()
        .contains("reaper.drain.pause")
        .contains("null");
  }

  @Test
  void a_zero_drain_pause_is_accepted() {
    assertThat(
            ConferenceRoomReaperOptions.builder().drainPause(Duration.ZERO).build().drain().pause())
        .isEqualTo(Duration.ZERO);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Several violations
  // ---------------------------------------------------------------------------------------------------------------

  @Test
  void several_violations_are_all_listed() {
    InvalidOptionsException e =
        invalid(
            ConferenceRoomReaperOptions.builder()
                .pollingInterval(Duration.ZERO)
                .provisionTimeout(null)
                .batchSize(0)
                .drainPause(Duration.ofMillis(-5))
                .lockTtl(Duration.ofSeconds(20))
                .maxRunDuration(Duration.ofSeconds(30))
                .statementTimeout(Duration.ofSeconds(45))
                .emptyRoomGrace(Duration.ofHours(5)));

    assertThat(e.violations()).hasSize(8);
    assertThat(e.violations())
        .anySatisfy(v -> assertThat(v).startsWith("reaper.statement-timeout × 4").contains("PT20S"))
        .anySatisfy(v -> assertThat(v).startsWith("reaper.polling-interval").contains("PT0S"))
        .anySatisfy(v -> assertThat(v).startsWith("reaper.provision-timeout"))
        .anySatisfy(v -> assertThat(v).startsWith("reaper.batch-size").endsWith(" 0"))
        .anySatisfy(v -> assertThat(v).startsWith("reaper.drain.pause").contains("PT-0.005S"))
        .anySatisfy(v -> assertThat(v).startsWith("reaper.max-run-duration").contains("PT30S"))
        .anySatisfy(v -> assertThat(v).startsWith("reaper.statement-timeout").contains("PT45S"))
        .anySatisfy(v -> assertThat(v).startsWith("reaper.empty-room-grace").contains("PT5H"));
    for (String violation : e.violations()) {
      assertThat(e.getMessage()).contains(violation);
    }
  }

  @Test
  void every_null_duration_is_listed_at_once() {
    ReaperOptionsBuilder b = ConferenceRoomReaperOptions.builder();
    for (DurationOption option : REQUIRED_POSITIVE_DURATIONS) {
      option.set().apply(b, null);
    }
    b.drainPause(null);

    InvalidOptionsException e = invalid(b);

    List<String> properties = new ArrayList<>();
    REQUIRED_POSITIVE_DURATIONS.forEach(o -> properties.add(o.property()));
    properties.add("reaper.drain.pause");
    assertThat(e.violations()).hasSize(properties.size());
    for (String property : properties) {
      assertThat(e.violations()).anySatisfy(v -> assertThat(v).startsWith(property));
    }
  }

  @Test
  void violations_cannot_be_modified_by_the_caller() {
    InvalidOptionsException e = invalid(ConferenceRoomReaperOptions.builder().batchSize(0));

    assertThatThrownBy(() -> e.violations().add("x"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void invalid_options_are_an_illegal_argument() {
    InvalidOptionsException e = invalid(ConferenceRoomReaperOptions.builder().batchSize(0));

    assertThat(e).isInstanceOf(IllegalArgumentException.class);
  }
}
