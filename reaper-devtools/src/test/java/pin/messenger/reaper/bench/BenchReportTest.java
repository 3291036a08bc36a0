package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

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
}
