package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bench's child processes, with real processes ({@code sh}). */
class ChildTest {
  @TempDir Path dir;

  private static ProcessBuilder sh(String script) {
    return new ProcessBuilder("sh", "-c", script);
  }

  @Test
  void a_child_timed_to_its_exit_gives_its_status_its_output_and_the_time_it_took()
      throws Exception {
    Child.Exit exit =
        Child.toExit(sh("sleep 0.2; echo one; echo two; exit 3"), Duration.ofMinutes(1));

    assertThat(exit.status()).isEqualTo(3);
    assertThat(exit.output()).isEqualTo("one\ntwo\n");
    assertThat(exit.millis()).isGreaterThanOrEqualTo(200);
  }

  @Test
  void a_child_run_to_a_zero_exit_leaves_its_output_in_the_log() throws Exception {
    Path log = dir.resolve("ok.log");
    Child.run(sh("echo out; echo err >&2"), log, Duration.ofMinutes(1));

    assertThat(Files.readAllLines(log)).containsExactlyInAnyOrder("out", "err");
  }

  @Test
  void a_failed_child_is_an_error_with_its_command_and_the_end_of_its_log() {
    Path log = dir.resolve("failed.log");

    assertThatThrownBy(
            () ->
                Child.run(
                    sh("for i in $(seq 1 50); do echo line $i; done; exit 1"),
                    log,
                    Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sh -c")
        .hasMessageContaining(log.toString())
        .hasMessageContaining("line 50")
        .hasMessageNotContaining("line 20\n");
  }

  @Test
  void a_stopped_child_gets_sigterm_and_may_finish_its_output() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    Process p =
        sh("trap 'echo terminated; exit 0' TERM; echo ready; while true; do sleep 0.1; done")
            .start();
    ChildOutput out = ChildOutput.follow(p, "test-child", (line, at) -> lines.add(line));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!lines.contains("ready") && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }

    Child.stop(p, Duration.ofMinutes(1));
    out.ended().get(1, TimeUnit.MINUTES);

    assertThat(p.isAlive()).isFalse();
    assertThat(p.exitValue()).isZero();
    assertThat(lines).containsExactly("ready", "terminated");
  }

  @Test
  void a_child_that_ignores_sigterm_is_killed_after_its_grace() throws Exception {
    Process p = sh("trap '' TERM; while true; do sleep 0.1; done").start();
    Thread.sleep(200);

    Child.stop(p, Duration.ofMillis(300));

    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).isNotZero();
  }

  @Test
  void the_output_keeps_its_last_forty_lines_for_an_error_message() throws Exception {
    Process p = sh("for i in $(seq 1 100); do echo line $i; done").start();
    ChildOutput out = ChildOutput.follow(p, "test-child", (line, at) -> {});
    out.ended().get(1, TimeUnit.MINUTES);

    assertThat(out.tail().split("\n")).hasSize(40).startsWith("line 61").endsWith("line 100");
  }
}
