package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The harness ends what it started when a wait runs out. */
class JarRunnerTest {

  @Test
  void a_process_that_outlives_its_wait_is_killed_with_its_children() throws Exception {
    Process p = new ProcessBuilder("bash", "-c", "sleep 600 & sleep 600; wait").start();
    // Both sleeps are running before the wait starts.
    List<ProcessHandle> children = List.of();
    for (int i = 0; i < 200 && children.size() < 2; i++) {
      children = p.descendants().toList();
      Thread.sleep(50);
    }
    assertThat(children).hasSize(2);

    assertThat(JarRunner.finished(p, 1)).isFalse();

    assertThat(p.isAlive()).isFalse();
    for (ProcessHandle child : children) {
      child.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(child.isAlive()).as("child %s", child.pid()).isFalse();
    }
  }

  @Test
  void a_process_that_ends_in_time_is_left_to_its_exit_status() throws Exception {
    Process p = new ProcessBuilder("bash", "-c", "exit 3").start();
    assertThat(JarRunner.finished(p, 60)).isTrue();
    assertThat(p.exitValue()).isEqualTo(3);
  }
}
