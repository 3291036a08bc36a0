package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench's numeric options: given, absent, or wrong (an error naming the option). */
class BenchArgsTest {

  @Test
  void a_given_number_wins_over_the_fallback() {
    assertThat(
            BenchArgs.number(List.of("--quick", "--startup-rounds", "3"), "--startup-rounds", 5, 1))
        .isEqualTo(3);
  }

  @Test
  void an_absent_option_is_the_fallback() {
    assertThat(BenchArgs.number(List.of("--quick"), "--schedule-seconds", 60, 1)).isEqualTo(60);
  }

  @Test
  void a_missing_value_is_an_error_naming_the_option() {
    assertThatThrownBy(
            () -> BenchArgs.number(List.of("--startup-rounds"), "--startup-rounds", 5, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--startup-rounds")
        .hasMessageContaining("''");
  }

  @Test
  void a_value_that_is_not_a_whole_number_or_is_too_small_is_an_error_quoting_it() {
    assertThatThrownBy(
            () ->
                BenchArgs.number(List.of("--schedule-seconds", "1m"), "--schedule-seconds", 60, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--schedule-seconds")
        .hasMessageContaining("'1m'");
    assertThatThrownBy(
            () -> BenchArgs.number(List.of("--startup-rounds", "0"), "--startup-rounds", 5, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
  }
}
