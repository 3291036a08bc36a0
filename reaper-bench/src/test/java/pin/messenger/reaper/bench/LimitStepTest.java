package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The limit section's verdict on a step, and the backlog trough it is made from. */
class LimitStepTest {

  @Test
  void the_trough_is_the_smallest_backlog_sampled_inside_the_interval() {
    List<double[]> samples =
        List.of(
            new double[] {1_000, 50},
            new double[] {1_500, 20},
            new double[] {2_000, 5},
            new double[] {2_500, 40});

    assertThat(LimitStep.trough(samples, 1_000, 2_000)).isEqualTo(20);
    assertThat(LimitStep.trough(samples, 1_000, 2_001)).isEqualTo(5);
    assertThat(LimitStep.trough(samples, 3_000, 4_000)).as("no sample").isEqualTo(-1);
  }

  @Test
  void a_step_is_sustainable_while_the_trough_grows_by_at_most_half_a_batch() {
    assertThat(LimitStep.sustainable(100, 150, 100, 0)).isTrue();
    assertThat(LimitStep.sustainable(100, 151, 100, 0)).isFalse();
    assertThat(LimitStep.sustainable(100, 20, 100, 0)).as("a shrinking backlog").isTrue();
  }

  @Test
  void with_many_arrivals_five_percent_of_them_is_the_allowance() {
    assertThat(LimitStep.sustainable(0, 500, 100, 10_000)).isTrue();
    assertThat(LimitStep.sustainable(0, 501, 100, 10_000)).isFalse();
  }
}
