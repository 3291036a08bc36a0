package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report's arithmetic and text, and the chart series it is drawn from. */
class BenchReportTest {

  @Test
  void median_of_an_odd_count_is_the_middle_value_whatever_the_order() {
    assertThat(BenchReport.median(List.of(9.0, 1.0, 5.0))).isEqualTo(5.0);
    assertThat(BenchReport.median(List.of(4.0))).isEqualTo(4.0);
  }

  @Test
  void median_of_an_even_count_is_the_mean_of_the_two_middle_values() {
    assertThat(BenchReport.median(List.of(10.0, 1.0, 3.0, 7.0))).isEqualTo(5.0);
  }

  @Test
  void median_leaves_the_measurements_in_the_order_they_were_taken() {
    List<Double> taken = new ArrayList<>(List.of(3.0, 1.0, 2.0));
    BenchReport.median(taken);
    assertThat(taken).containsExactly(3.0, 1.0, 2.0);
  }

  @Test
  void every_line_printed_is_kept_for_the_summary_in_order() {
    BenchReport report = new BenchReport();
    report.line("| mode | p50 |");
    report.line("|---|---:|");
    assertThat(report.toString()).isEqualTo("| mode | p50 |\n|---|---:|\n");
  }

  @Test
  void a_series_grows_by_copies_and_keeps_its_points_in_order() {
    Charts.Series empty = Charts.Series.of("fixed");
    Charts.Series one = empty.plus(0.5, 0.1);
    Charts.Series two = one.plus(1.5, 0.9);

    assertThat(empty.points()).isEmpty();
    assertThat(one.points()).hasSize(1);
    assertThat(two.name()).isEqualTo("fixed");
    assertThat(two.points()).extracting(p -> p[0]).containsExactly(0.5, 1.5);
    assertThat(two.points()).extracting(p -> p[1]).containsExactly(0.1, 0.9);
  }

  @Test
  void paired_ratios_divide_each_round_by_its_own_reference() {
    assertThat(BenchReport.pairedRatios(List.of(10.0, 30.0, 8.0), List.of(5.0, 10.0, 8.0)))
        .containsExactly(2.0, 3.0, 1.0);
  }

  @Test
  void paired_ratios_of_series_of_different_lengths_are_an_error_naming_both_lengths() {
    assertThatThrownBy(() -> BenchReport.pairedRatios(List.of(1.0, 2.0), List.of(1.0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 and 1");
  }

  @Test
  void the_median_of_paired_ratios_is_not_the_ratio_of_the_medians() {
    // A machine that slows down in round 2 slows both sides: the paired ratio does not see it.
    List<Double> figure = List.of(20.0, 80.0, 21.0);
    List<Double> reference = List.of(10.0, 40.0, 30.0);

    assertThat(BenchReport.median(BenchReport.pairedRatios(figure, reference))).isEqualTo(2.0);
    assertThat(BenchReport.median(figure) / BenchReport.median(reference)).isEqualTo(0.7);
  }

  @Test
  void a_ceiling_is_met_at_the_target_itself_and_missed_above_it_by_the_excess() {
    assertThat(BenchReport.atMost(25, 25, "%.0f ms")).isEqualTo("met");
    assertThat(BenchReport.atMost(31, 25, "%.0f ms")).isEqualTo("missed by 6 ms");
    assertThat(BenchReport.atMost(1.5, 1.2, "%.3f")).isEqualTo("missed by 0.300");
  }

  @Test
  void a_missed_ceiling_can_say_by_how_many_percent() {
    assertThat(BenchReport.atMost(1_500, 1_000, "%,.1f ms (%.0f %%)"))
        .isEqualTo("missed by 500.0 ms (50 %)");
  }

  @Test
  void each_round_is_printed_in_the_order_taken() {
    assertThat(BenchReport.each(List.of(1_020.4, 980.0), "%,.0f")).isEqualTo("1,020 · 980");
  }

  @Test
  void rounds_rotate_the_order_by_one_so_that_each_item_goes_first_once() {
    List<String> items = List.of("a", "b", "c");

    assertThat(List.of(0, 1, 2).stream().map(i -> BenchReport.rotated(items, 0, i)))
        .containsExactly("a", "b", "c");
    assertThat(List.of(0, 1, 2).stream().map(i -> BenchReport.rotated(items, 1, i)))
        .containsExactly("b", "c", "a");
    assertThat(List.of(0, 1, 2).stream().map(i -> BenchReport.rotated(items, 2, i)))
        .containsExactly("c", "a", "b");
  }
}
