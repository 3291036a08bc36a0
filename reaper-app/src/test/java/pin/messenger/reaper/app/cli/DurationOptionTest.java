package pin.messenger.reaper.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The durations an operator types: the documented forms, and nothing that reads as millis. */
class DurationOptionTest {

  @ParameterizedTest
  @CsvSource({
    "30s, PT30S",
    "15m, PT15M",
    "2h, PT2H",
    "1d, PT24H",
    "PT30M, PT30M",
    "pt30m, PT30M",
    "P1D, PT24H",
    "P1DT2H, PT26H"
  })
  void the_documented_forms_are_read_as_they_say(String text, Duration expected) {
    assertThat(DurationOption.parse("for", text)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"30", "0030", "500ms", "10us", "5ns", "30S", "1w", "30 m", "m", "", "soon", "P"})
  void a_number_without_a_unit_or_another_unit_is_refused_naming_the_accepted_forms(String text) {
    assertThatThrownBy(() -> DurationOption.parse("for", text))
        .isInstanceOf(ReaperCli.UsageException.class)
        .hasMessage("--for '" + text + "' is not a duration: give " + DurationOption.FORMS);
    assertThat(DurationOption.FORMS).contains("30s, 15m, 2h, 1d").contains("PT30M");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0s", "0d", "PT0S", "-PT5M"})
  void a_duration_must_be_positive(String text) {
    assertThatThrownBy(() -> DurationOption.parse("for", text))
        .isInstanceOf(ReaperCli.UsageException.class)
        .hasMessage("--for '" + text + "' must be positive");
  }

  @ParameterizedTest
  @ValueSource(strings = {"2", "90ms", "yesterday"})
  void since_takes_the_same_durations_or_an_instant(String text) {
    Instant now = Instant.parse("2026-12-02T10:00:00Z");
    assertThat(DurationOption.since("since", "2h", now)).isEqualTo(now.minusSeconds(7200));
    assertThat(DurationOption.since("since", "2026-12-01T10:00:00Z", now))
        .isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
    assertThatThrownBy(() -> DurationOption.since("since", text, now))
        .isInstanceOf(ReaperCli.UsageException.class)
        .hasMessageContaining("--since '" + text + "' is not a duration ago (30s, 15m, 2h, 1d");
  }
}
