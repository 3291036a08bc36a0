package pin.messenger.reaper.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.app.cli.ReaperCli;

/**
 * {@code bin/reaper demo}'s command line, where it lives: the development launcher. A bad one is
 * refused with exit 2 and a line naming what is wrong, before anything starts (no embedded
 * database, no Spring context: these tests would take seconds otherwise).
 */
class DevLauncherTest {

  /** Exit status and stderr of {@code bin/reaper <args>}. */
  record Result(int exit, String stderr) {}

  static Result launch(String... args) {
    return captureStderr(() -> ReaperCli.run(args, new DevLauncher()));
  }

  static Result captureStderr(IntSupplier action) {
    PrintStream original = System.err;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      int exit = action.getAsInt();
      return new Result(exit, buffer.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(original);
    }
  }

  @Test
  void demo_with_a_duration_that_is_not_one_is_refused_naming_the_accepted_forms() {
    Result r = launch("demo", "--duration", "soon");

    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.stderr())
        .contains("conference-room-reaper demo: --duration 'soon' is not a duration: give 30s,")
        .doesNotContain("unknown command");
  }

  @Test
  void demo_duration_without_a_value_or_not_positive_or_in_milliseconds_is_refused() {
    assertThat(launch("demo", "--duration").stderr())
        .contains("--duration needs a value such as 60s");
    assertThat(launch("demo", "--duration", "0s").stderr())
        .contains("--duration '0s' must be positive");
    // A number without a unit is no duration here (Spring would read 60 as 60 ms).
    assertThat(launch("demo", "--duration", "60").stderr())
        .contains("--duration '60' is not a duration");
    assertThat(launch("demo", "--duration", "500ms").exit()).isEqualTo(2);
  }

  @Test
  void demo_with_a_stray_argument_is_refused_naming_it() {
    Result r = launch("demo", "--duration", "60s", "fast");

    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.stderr()).contains("unexpected argument 'fast' (options are --name=value)");
  }

  @Test
  void demo_durations_in_every_documented_form_are_accepted() {
    assertThat(DemoCommand.parse(List.of("--duration", "60s")).duration())
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(DemoCommand.parse(List.of("--duration", "15m")).duration())
        .isEqualTo(Duration.ofMinutes(15));
    assertThat(DemoCommand.parse(List.of("--duration", "2h")).duration())
        .isEqualTo(Duration.ofHours(2));
    assertThat(DemoCommand.parse(List.of("--duration", "PT90S")).duration())
        .isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  void demo_without_a_duration_runs_until_stopped_and_hands_its_options_to_the_worker() {
    DemoCommand.Arguments a =
        DemoCommand.parse(List.of("--reaper.batch-size=5", "--duration", "30s", "--x.y=z"));
    assertThat(a.duration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(a.options()).containsExactly("--reaper.batch-size=5", "--x.y=z");

    DemoCommand.Arguments until = DemoCommand.parse(List.of("--reaper.batch-size=5"));
    assertThat(until.duration()).isNull();
    assertThat(until.options()).containsExactly("--reaper.batch-size=5");
  }

  @Test
  void parsing_leaves_the_callers_list_alone() {
    List<String> args = new java.util.ArrayList<>(List.of("--duration", "60s"));
    DemoCommand.parse(args);
    assertThat(args).containsExactly("--duration", "60s");
    assertThatThrownBy(() -> DemoCommand.parse(List.of("--duration", "later")))
        .isInstanceOf(ReaperCli.UsageException.class)
        .hasMessageContaining("'later' is not a duration");
  }

  @Test
  void the_development_launchers_help_lists_demo_and_bench() {
    PrintStream original = System.out;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = ReaperCli.run(new String[] {"help"}, new DevLauncher());
    } finally {
      System.setOut(original);
    }
    assertThat(exit).isZero();
    assertThat(buffer.toString(StandardCharsets.UTF_8))
        .startsWith("usage: bin/reaper <command>")
        .contains("demo [--duration 60s]")
        .contains("bench [--quick]");
  }
}
