package pin.messenger.reaper.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.util.ArrayList;
import java.util.List;
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

  /** Exit status and the last line on stdout (the command's document), with the database given. */
  record Run(int exit, String out) {}

  static Run cli(String... command) {
    List<String> args = new ArrayList<>(List.of(command));
    args.add("--spring.datasource.url=" + db.url());
    args.add("--spring.datasource.username=" + db.user());
    args.add("--spring.datasource.password=" + db.password());
    ReaperCliTest.Run r = ReaperCliTest.cli(args.toArray(String[]::new));
    String printed = r.out().strip();
    return new Run(r.exit(), printed.substring(printed.lastIndexOf('\n') + 1));
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
