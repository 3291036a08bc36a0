package pin.messenger.reaper.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command line before anything starts: dispatch, usage, per-command help, refusals of bad input
 * (exit 2, the problem named, an error document for a JSON command) and the fail-closed rule (exit
 * 78). No database is configured here, so no test starts a Spring context; the streams are the
 * context's own, never the process's.
 */
class ReaperCliTest {

  /** Exit status, stdout and stderr of one command line. */
  record Run(int exit, String out, String err) {}

  static Run cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext cli =
        new CliContext(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            ReaperCli.Extension.NONE);
    int exit = ReaperCli.run(args, cli);
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void help_prints_every_command_with_its_synopsis_and_the_exit_statuses() {
    Run r = cli("help");

    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .startsWith("usage: java -jar conference-room-reaper.jar <command>")
        .contains("  run-once [--dry-run]    one cycle; the last stdout line is one JSON object")
        .contains("\n                          (--dry-run: claim and decide, then roll back")
        .contains("  status [--json]         per phase the due count")
        .contains(
            "  pause [--phase P] --reason \"...\" [--for 30m]\n                          pause")
        .contains("audit [--limit N] [--action A] [--actor NAME] [--since T] [--json]")
        .contains("Exit status: 0 done;")
        .contains("without it every command but help exits with status 78");
    assertThat(cli("--help").out()).isEqualTo(r.out());
    assertThat(cli("-h").out()).isEqualTo(r.out());
  }

  @Test
  void each_command_has_its_own_help_naming_its_options() {
    Run pause = cli("pause", "--help");

    assertThat(pause.exit()).isZero();
    assertThat(pause.out())
        .startsWith(
            "usage: java -jar conference-room-reaper.jar pause [--phase P] --reason \"...\"")
        .contains("--phase=P", "--for=30m", "--reason", "--actor=A", "--yes", "--json");
    assertThat(cli("help", "audit").out()).contains("--limit=N", "--since=T");
    assertThat(cli("run-once", "-h").out()).contains("--dry-run");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "pause --reason x --for 30 | --for '30' is not a duration: give 30s, 15m, 2h, 1d",
        "pause --reason x --for=30 | --for '30' is not a duration: give 30s, 15m, 2h, 1d",
        "pause --reason x --for 500ms | --for '500ms' is not a duration: give 30s, 15m, 2h, 1d",
        "pause --reason x --for soon | --for 'soon' is not a duration: give 30s, 15m, 2h, 1d",
        "pause --reason x --for 0s | --for '0s' must be positive",
        "pause --phase bogus --reason x | unknown phase 'bogus' (phases: empty-room,",
        "pause --phase stale-live | --reason \"…\" is required",
        "pause --reason | --reason needs a value",
        "retry not-a-uuid | 'not-a-uuid' is not a conference id (a UUID)",
        "retry | give either a conference id or --poison",
        "requeue --since 1h | give exactly one of --kafka-quarantined or --recorder-given-up",
        "requeue --kafka-quarantined --since 2 | --since '2' is not a duration ago (30s,",
        "requeue --recorder-given-up --since 90 | --since '90' is not a duration ago (30s,",
        "end --reason x | end needs a conference id",
        "explain | explain needs a conference id",
        "audit --limit 0 | --limit '0' must be a number from 1 to 1000",
        "audit --action pasue | unknown action 'pasue' (one of pause, resume, retry,",
        "status --bogus | unexpected argument '--bogus' (options are --name=value)",
        "run-once --dry | unexpected argument '--dry'",
        "migrate extra | unexpected argument 'extra'"
      })
  void a_bad_command_line_is_refused_naming_the_problem_before_anything_starts(
      String commandLine, String message) {
    Run r = cli(commandLine.split(" "));

    assertThat(r.exit()).as(r.err()).isEqualTo(2);
    assertThat(r.err())
        .contains("conference-room-reaper " + commandLine.split(" ")[0] + ": " + message)
        .contains("usage:");
    assertThat(r.err()).doesNotContain("SPRING_DATASOURCE_URL");
  }

  @Test
  void a_json_command_says_a_bad_command_line_in_one_error_document_on_stdout() {
    Run json = cli("audit", "--limit", "x", "--json");
    assertThat(json.exit()).isEqualTo(2);
    assertThat(JsonPath.<String>read(json.out(), "$.error"))
        .isEqualTo("--limit 'x' must be a number from 1 to 1000");

    Run runOnce = cli("run-once", "--dry");
    assertThat(JsonPath.<String>read(runOnce.out(), "$.error"))
        .isEqualTo("unexpected argument '--dry' (options are --name=value)");

    assertThat(cli("audit", "--limit", "x").out()).isEmpty();
    assertThat(JsonPath.<String>read(cli("bogus", "--json").out(), "$.error"))
        .isEqualTo("unknown command 'bogus'");
  }

  /**
   * Each documented form passes the command line: the command gets as far as wanting a database.
   * The empty URL on the command line wins over a SPRING_DATASOURCE_URL in the caller's
   * environment, so these pauses can never reach a real database.
   */
  @ParameterizedTest
  @ValueSource(strings = {"30s", "15m", "2h", "1d", "PT30M"})
  void every_documented_duration_form_passes_the_command_line(String duration) {
    String noDatabase = "--spring.datasource.url=";
    assertThat(cli("pause", "--reason", "x", "--for", duration, noDatabase).exit())
        .isEqualTo(ReaperCli.EXIT_NOT_CONFIGURED);
    assertThat(cli("requeue", "--kafka-quarantined", "--since", duration, noDatabase).exit())
        .isEqualTo(ReaperCli.EXIT_NOT_CONFIGURED);
  }

  @Test
  void a_valid_command_line_without_a_database_fails_closed_with_78() {
    Run r = cli("pause", "--phase", "stale-live", "--reason", "x", "--for", "30m");

    assertThat(r.exit()).isEqualTo(ReaperCli.EXIT_NOT_CONFIGURED);
    assertThat(r.err()).contains("SPRING_DATASOURCE_URL").contains("nothing was started");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void the_completion_script_completes_every_command_and_its_options() {
    Run r = cli("completion");

    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains("complete -F _complete_reaper")
        .contains("run-once", "requeue", "audit", "--kafka-quarantined", "--without-event");
    assertThat(cli("completion", "--name", "crr").out()).contains("_complete_crr");
  }
}
