package pin.messenger.reaper.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * The commands that read or act start {@link CommandContext} alone: what they use (the pool, the
 * options, the clock, the store) is made and checked as for the worker, and nothing of the loop's
 * or delivery's. So an on-call engineer can read {@code status} while the deployment's delivery
 * settings are the very thing that is broken, and a bad option of the reaper itself is still
 * refused, naming it.
 */
class CommandContextTest {
  static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create();
  }

  @AfterAll
  static void close() {
    db.close();
  }

  record Run(int exit, String out) {}

  static Run cli(String... command) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CliContext cli =
        new CliContext(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            ReaperCli.Extension.NONE);
    String[] args = new String[command.length + 3];
    System.arraycopy(command, 0, args, 0, command.length);
    args[command.length] = "--spring.datasource.url=" + db.url();
    args[command.length + 1] = "--spring.datasource.username=" + db.user();
    args[command.length + 2] = "--spring.datasource.password=" + db.password();
    int exit = ReaperCli.run(args, cli);
    String printed = out.toString(StandardCharsets.UTF_8).strip();
    return new Run(exit, printed.substring(printed.lastIndexOf('\n') + 1));
  }

  @Test
  void status_answers_when_only_the_delivery_settings_are_invalid() {
    Run r =
        cli(
            "status",
            "--json",
            "--reaper.relay.batch-size=0",
            "--reaper.recorder.base-url=ftp://media/recorder");

    assertThat(r.exit()).as(r.out()).isZero();
    assertThat((Object) JsonPath.read(r.out(), "$.asOf")).isNotNull();
  }

  @Test
  void an_invalid_option_of_the_reaper_itself_is_still_refused_naming_it() {
    Run r = cli("status", "--json", "--reaper.batch-size=0");

    assertThat(r.exit()).isEqualTo(1);
    assertThat((String) JsonPath.read(r.out(), "$.error")).contains("reaper.batch-size");
  }
}
