package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the shipped-drain section keeps of a worker's lines, and when they arrived. */
class DrainLinesTest {
  private static String completed(int emptyTimeout, int durationMs) {
    return "{\"message\":\"cycle completed\",\"durationMs\":"
        + durationMs
        + ",\"emptyTimeout\":"
        + emptyTimeout
        + ",\"provisionFailed\":0}";
  }

  @Test
  void a_reaping_cycle_runs_from_its_started_line_to_its_completed_line() {
    DrainLines lines = new DrainLines();
    lines.line("{\"message\":\"cycle started\"}", 1_000);
    lines.line("{\"message\":\"conference reaped\"}", 1_500);
    lines.line("{\"message\":\"conference reaped\"}", 1_600);
    lines.line(completed(2, 7), 2_000);

    DrainLines.Cycle c = lines.reaping(0);
    assertThat(c).isEqualTo(new DrainLines.Cycle(1_000, 2_000, 2, 7));
    assertThat(lines.reapedLines()).isEqualTo(2);
    assertThat(lines.reaping(1)).isNull();
  }

  @Test
  void cycles_that_reaped_nothing_are_not_kept_and_rooms_are_summed_from_a_given_cycle() {
    DrainLines lines = new DrainLines();
    lines.line("{\"message\":\"cycle started\"}", 1);
    lines.line(completed(0, 1), 2);
    lines.line("{\"message\":\"cycle started\"}", 3);
    lines.line(completed(300, 40), 4);
    lines.line("{\"message\":\"cycle started\"}", 5);
    lines.line(completed(200, 30), 6);

    assertThat(lines.reapingCycles()).isEqualTo(2);
    assertThat(lines.reapedSince(0)).isEqualTo(500);
    assertThat(lines.reapedSince(1)).isEqualTo(200);
    assertThat(lines.reapedSince(2)).isZero();
  }
}
