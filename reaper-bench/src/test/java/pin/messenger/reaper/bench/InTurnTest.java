package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Steps timed in turn: the warm-up is dropped, each round's steps share one moment. */
class InTurnTest {

  @Test
  void the_warm_up_rounds_are_run_but_not_returned() throws Exception {
    List<String> ran = new ArrayList<>();
    List<double[]> times = InTurn.time(3, 2, List.of(now -> ran.add("a"), now -> ran.add("b")));

    assertThat(times).hasSize(3);
    assertThat(times).allSatisfy(t -> assertThat(t).hasSize(2));
    assertThat(ran).hasSize(10).containsExactly("a", "b", "a", "b", "a", "b", "a", "b", "a", "b");
  }

  @Test
  void the_steps_of_one_round_are_given_the_same_moment() throws Exception {
    List<Instant> a = new ArrayList<>();
    List<Instant> b = new ArrayList<>();
    InTurn.time(
        4,
        0,
        List.of(
            a::add,
            now -> {
              Thread.sleep(2);
              b.add(now);
            }));

    assertThat(b).isEqualTo(a);
  }

  @Test
  void a_step_is_timed_in_milliseconds_and_read_back_by_its_position() throws Exception {
    List<double[]> times = InTurn.time(2, 0, List.of(now -> {}, now -> Thread.sleep(30)));

    assertThat(InTurn.of(times, 1))
        .hasSize(2)
        .allSatisfy(ms -> assertThat(ms).isGreaterThanOrEqualTo(30));
    assertThat(InTurn.of(times, 0)).hasSize(2).allSatisfy(ms -> assertThat(ms).isNotNegative());
  }
}
