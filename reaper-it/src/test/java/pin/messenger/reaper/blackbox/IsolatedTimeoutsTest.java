package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The probe rule of {@link DependencyOutagesIT}: isolated timeouts pass, anything else fails. */
class IsolatedTimeoutsTest {
  static DependencyOutagesIT.Probe ok(String worker) {
    return new DependencyOutagesIT.Probe(worker, "prometheus", Instant.EPOCH, 10, 200, "ok");
  }

  static DependencyOutagesIT.Probe timeout(String worker) {
    return new DependencyOutagesIT.Probe(
        worker,
        "prometheus",
        Instant.EPOCH,
        2000,
        -1,
        "java.net.http.HttpTimeoutException: request timed out");
  }

  static List<DependencyOutagesIT.Probe> broken(DependencyOutagesIT.Probe... probes) {
    return DependencyOutagesIT.isolatedTimeouts(List.of(probes), p -> p.status() == 200);
  }

  @Test
  void one_timeout_followed_by_an_answer_passes() {
    assertThat(broken(ok("A"), timeout("A"), ok("B"), ok("A"))).isEmpty();
  }

  @Test
  void consecutive_timeouts_fail() {
    DependencyOutagesIT.Probe first = timeout("A");
    assertThat(broken(ok("A"), first, ok("B"), timeout("A"), ok("A"))).containsExactly(first);
  }

  @Test
  void a_second_isolated_timeout_of_one_worker_fails() {
    assertThat(broken(timeout("A"), ok("A"), timeout("A"), ok("A"))).hasSize(1);
  }

  @Test
  void a_timeout_with_no_later_answer_fails() {
    assertThat(broken(ok("A"), timeout("A"))).hasSize(1);
  }

  @Test
  void an_error_answer_is_never_excused() {
    DependencyOutagesIT.Probe error =
        new DependencyOutagesIT.Probe("A", "prometheus", Instant.EPOCH, 5, 500, "boom");
    assertThat(broken(error, ok("A"))).containsExactly(error);
  }
}
