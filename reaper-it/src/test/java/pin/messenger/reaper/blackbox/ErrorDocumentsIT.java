package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a script reads on stdout when a command fails: one JSON document carrying the cause a person
 * acts on (the framework's chain goes to the log), and for a bad command line given with {@code
 * --json} a JSON document too, so that {@code … --json | jq} never reads empty input.
 */
class ErrorDocumentsIT {
  static PostgresServer server;

  @BeforeAll
  static void start() throws Exception {
    server = PostgresServer.start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  /** The production jar, in a scratch directory, with a clean environment plus {@code env}. */
  private static ScratchRun.Result worker(Map<String, String> env, String... args)
      throws Exception {
    Path dir = Files.createTempDirectory("error-documents");
    List<String> command = new ArrayList<>(JarRunner.java("-jar", JarRunner.WORKER_JAR.toString()));
    command.addAll(List.of(args));
    try {
      return ScratchRun.run(dir, env, command);
    } finally {
      PostgresServer.deleteQuietly(dir);
    }
  }

  private static String lastLine(String text) {
    return text.strip().lines().reduce((a, b) -> b).orElse("");
  }

  @Test
  void run_once_with_invalid_options_names_the_options_problem_not_the_bean_chain()
      throws Exception {
    ScratchRun.Result r =
        worker(
            JarRunner.database(server),
            "run-once",
            "--reaper.statement-timeout=10s",
            "--reaper.lock-ttl=35s");

    assertThat(r.exit()).as(r.stdout() + r.stderr()).isEqualTo(1);
    String error = JsonPath.read(lastLine(r.stdout()), "$.error");
    assertThat(error)
        .isEqualTo(
            "Invalid conference-room-reaper configuration: reaper.statement-timeout × 4 must be"
                + " shorter than reaper.lock-ttl (PT35S) but was PT10S");
    String log = r.stdout().substring(0, r.stdout().strip().lastIndexOf('\n') + 1) + r.stderr();
    assertThat(log).as("the chain is in the log").contains("Error creating bean with name");
  }

  @Test
  void run_once_against_a_database_that_refuses_names_the_connection_problem() throws Exception {
    ScratchRun.Result r =
        worker(
            Map.of(
                "SPRING_DATASOURCE_URL",
                "jdbc:postgresql://127.0.0.1:1/messenger?connectTimeout=5",
                "SPRING_DATASOURCE_USERNAME",
                "postgres"),
            "run-once");

    assertThat(r.exit()).as(r.stdout() + r.stderr()).isEqualTo(1);
    String error = JsonPath.read(lastLine(r.stdout()), "$.error");
    assertThat(error)
        .contains("127.0.0.1:1")
        .contains("refused")
        .doesNotContain("Error creating bean", "nested exception");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "status --json --bogus | unexpected argument '--bogus'",
        "explain not-a-uuid --json | 'not-a-uuid' is not a conference id",
        "audit --limit x --json | --limit 'x' must be a number",
        "audit --action pasue --json | unknown action 'pasue' (one of pause, resume, retry,",
        "pause --json --phase bogus --reason x | unknown phase 'bogus'",
        "bogus --json | unknown command 'bogus'",
        "run-once --dry | unexpected argument '--dry'",
        "migrate extra | unexpected argument 'extra'"
      })
  void a_bad_command_line_of_a_json_command_prints_one_json_error_document(
      String commandLine, String message) throws Exception {
    ScratchRun.Result r = worker(Map.of(), commandLine.split(" "));

    assertThat(r.exit()).as(r.stderr()).isEqualTo(2);
    assertThat(r.stdout().strip().lines()).as("one document: " + r.stdout()).hasSize(1);
    String error = JsonPath.read(r.stdout(), "$.error");
    assertThat(error).contains(message);
    assertThat(r.stderr()).as("and the usage for a person").contains(message).contains("usage:");
  }

  @Test
  void a_bad_command_line_without_json_prints_nothing_on_stdout() throws Exception {
    ScratchRun.Result r = worker(Map.of(), "status", "--bogus");

    assertThat(r.exit()).as(r.stderr()).isEqualTo(2);
    assertThat(r.stdout()).isEmpty();
    assertThat(r.stderr()).contains("unexpected argument '--bogus'");
  }
}
