package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.RunnerException;
import pin.messenger.reaper.bench.IdleCycleJmh.Score;
import pin.messenger.reaper.testing.DatabaseTest;

/**
 * JMH runs the idle cycle and the three raw claims on the database it is given (in this JVM), and a
 * cycle that is not idle fails the run instead of timing something else.
 */
class IdleCycleJmhTest extends DatabaseTest {
  static String url() {
    String url = db.url();
    return url
        + (url.contains("?") ? "&" : "?")
        + "user="
        + db.user()
        + "&password="
        + db.password();
  }

  @Test
  void times_the_idle_cycle_and_the_raw_claims_on_the_database_given() throws Exception {
    new BenchData(db.dataSource()).liveRooms(50);

    Map<String, Map<String, Score>> scores =
        IdleCycleJmh.run(List.of("reaperCycle", "threeRawClaims"), List.of(url()), 1, 0);

    assertThat(scores).containsOnlyKeys("reaperCycle", "threeRawClaims");
    assertThat(scores.get("reaperCycle").get(url()).ms()).isPositive();
    assertThat(scores.get("threeRawClaims").get(url()).ms()).isPositive();
  }

  @Test
  void a_cycle_that_closes_a_room_fails_the_run() throws Exception {
    new BenchData(db.dataSource()).backlog(3);

    assertThatThrownBy(() -> IdleCycleJmh.run(List.of("reaperCycle"), List.of(url()), 1, 0))
        .isInstanceOf(RunnerException.class);
  }
}
