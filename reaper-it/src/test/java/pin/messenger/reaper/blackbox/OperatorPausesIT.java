package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The edges of {@code pause} / {@code resume} as the on-call engineer meets them, with the packaged
 * jar against a real PostgreSQL (no worker needed: a pause is a row, and what is in force is what
 * {@code status} prints): a duration without a unit is refused for every duration option; a {@code
 * --for} pause that ended by itself leaves nothing to resume and no audit row claiming otherwise;
 * resuming one phase while the whole reaper is paused says what is in force and how to lift it.
 */
class OperatorPausesIT {
  static ReliabilityHarness harness;

  @BeforeAll
  static void start() throws Exception {
    harness = ReliabilityHarness.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
  }

  @AfterEach
  void liftEveryPause() {
    harness.rooms.exec("DELETE FROM messenger.conference_reaper_pauses");
  }

  static JarRunner.Split reaper(String... args) throws Exception {
    return JarRunner.runSplit(JarRunner.database(harness.server), ReliabilityHarness.JVM, args);
  }

  static long auditRows() {
    return harness.rooms.count("SELECT count(*) FROM messenger.conference_reaper_audit");
  }

  static long pauseRows() {
    return harness.rooms.count("SELECT count(*) FROM messenger.conference_reaper_pauses");
  }

  /**
   * One bad duration per option that takes one, from outside: the exit status, the empty stdout,
   * the message and nothing written. Every other spelling is a command-line case of {@code
   * ReaperCliTest} (the same parser, in-process, no JVM per case).
   */
  @Test
  void a_duration_without_a_unit_is_a_bad_command_line_for_every_duration_option()
      throws Exception {
    long audited = auditRows();
    List<List<String>> commands =
        List.of(
            List.of("pause", "--phase", "stale-live", "--reason", "x", "--for", "30"),
            List.of("requeue", "--recorder-given-up", "--since", "90"));
    for (List<String> command : commands) {
      JarRunner.Split run = reaper(command.toArray(String[]::new));
      assertThat(run.exit()).as(command + ": " + run.stdout() + run.stderr()).isEqualTo(2);
      assertThat(run.stdout()).as(command.toString()).isEmpty();
      assertThat(run.stderr())
          .as(command.toString())
          .contains("is not a duration")
          .contains("30s, 15m, 2h, 1d")
          .contains("PT30M");
    }
    assertThat(pauseRows()).isZero();
    assertThat(auditRows()).isEqualTo(audited);

    // A documented form still works (each form: ReaperCliTest, DurationOptionTest).
    JarRunner.Split pause =
        reaper("pause", "--phase", "stale-live", "--reason", "x", "--for", "PT30M", "--json");
    assertThat(pause.exit()).as(pause.stderr()).isZero();
    assertThat(pauseRows()).isEqualTo(1);
  }

  @Test
  void resume_after_a_for_pause_ended_by_itself_finds_nothing_paused_and_writes_no_audit_row()
      throws Exception {
    JarRunner.Split pause =
        reaper(
            "pause",
            "--phase",
            "provision-timeout",
            "--reason",
            "short admission blip",
            "--for",
            "1s",
            "--actor",
            "oncall-anna",
            "--json");
    assertThat(pause.exit()).as(pause.stderr()).isZero();
    Await.until(
        "the pause's end has passed",
        Duration.ofSeconds(30),
        () ->
            harness.rooms.count(
                    "SELECT count(*) FROM messenger.conference_reaper_pauses WHERE until < now()")
                == 1);
    JarRunner.Split status = reaper("status", "--json");
    assertThat(status.exit()).as(status.stderr()).isZero();
    assertThat((List<?>) JsonPath.read(status.stdout(), "$.pauses")).isEmpty();
    long audited = auditRows();

    JarRunner.Split resume = reaper("resume", "--phase", "provision-timeout", "--json");
    JarRunner.Split resumeAll = reaper("resume");

    assertThat(resume.exit()).as(resume.stdout() + resume.stderr()).isEqualTo(3);
    assertThat((String) JsonPath.read(resume.stdout(), "$.result")).isEqualTo("nothing");
    assertThat((Integer) JsonPath.read(resume.stdout(), "$.rowsChanged")).isZero();
    assertThat((String) JsonPath.read(resume.stdout(), "$.message"))
        .contains("'provision-timeout' is not paused")
        .contains("ended by itself");
    assertThat(resumeAll.exit()).as(resumeAll.stdout() + resumeAll.stderr()).isEqualTo(3);
    assertThat(resumeAll.stdout()).contains("nothing is paused").contains("nothing changed");
    assertThat(auditRows()).isEqualTo(audited);
    JarRunner.Split audit = reaper("audit", "--json");
    assertThat((List<String>) JsonPath.read(audit.stdout(), "$.actions[*].action"))
        .doesNotContain("resume");
  }

  @Test
  void resume_of_one_phase_during_a_whole_pause_says_what_is_in_force_and_how_to_lift_it()
      throws Exception {
    JarRunner.Split whole =
        reaper("pause", "--reason", "database failover INC-77", "--actor", "oncall-bob");
    assertThat(whole.exit()).as(whole.stderr()).isZero();
    JarRunner.Split status = reaper("status", "--json");
    assertThat((List<String>) JsonPath.read(status.stdout(), "$.pauses[*].scope"))
        .containsExactly("all");
    long audited = auditRows();

    JarRunner.Split one = reaper("resume", "--phase", "provision-timeout");

    assertThat(one.exit()).as(one.stdout() + one.stderr()).isEqualTo(3);
    assertThat(one.stdout())
        .contains("the whole reaper is paused by oncall-bob")
        .contains("database failover INC-77")
        .contains("bin/reaper resume")
        .contains("nothing changed");
    assertThat(auditRows()).isEqualTo(audited);
    assertThat(pauseRows()).isEqualTo(1);

    // With a pause of its own as well: resume lifts that one and says the phase stays paused.
    JarRunner.Split own =
        reaper("pause", "--phase", "provision-timeout", "--reason", "admission incident");
    assertThat(own.exit()).as(own.stderr()).isZero();
    JarRunner.Split lifted = reaper("resume", "--phase", "provision-timeout", "--json");
    assertThat(lifted.exit()).as(lifted.stdout() + lifted.stderr()).isZero();
    assertThat((Integer) JsonPath.read(lifted.stdout(), "$.rowsChanged")).isEqualTo(1);
    assertThat((String) JsonPath.read(lifted.stdout(), "$.message"))
        .contains("'provision-timeout' stays paused")
        .contains("the whole reaper is paused by oncall-bob");
    JarRunner.Split after = reaper("status", "--json");
    assertThat((List<String>) JsonPath.read(after.stdout(), "$.pauses[*].scope"))
        .containsExactly("all");

    JarRunner.Split all = reaper("resume", "--reason", "failover done");
    assertThat(all.exit()).as(all.stdout() + all.stderr()).isZero();
    assertThat(pauseRows()).isZero();
    assertThat(auditRows()).isEqualTo(audited + 3);
  }
}
