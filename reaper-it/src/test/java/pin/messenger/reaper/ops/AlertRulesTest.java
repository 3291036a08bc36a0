package pin.messenger.reaper.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.Prerequisite;

/**
 * The alert rules load and their unit tests pass ({@code promtool}, from Debian's prometheus
 * package, which {@code .ci/run} installs). Without it: a failure under {@code CI=true}, skipped
 * (saying why) on a developer machine.
 */
class AlertRulesTest {
  static final Path PROMTOOL = Path.of("/usr/bin/promtool");

  static String promtool(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(PROMTOOL.toString()));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command)
            .directory(Path.of("ops/prometheus").toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  static void requirePromtool() {
    Prerequisite.requireExecutable(PROMTOOL, "apt-get install prometheus (.ci/run installs it)");
  }

  @Test
  void alert_and_recording_rules_are_valid() throws Exception {
    requirePromtool();
    assertThat(promtool("check", "rules", "conference-room-reaper.rules.yml")).contains("SUCCESS");
  }

  @Test
  void alert_rules_pass_their_promtool_unit_tests() throws Exception {
    requirePromtool();
    assertThat(promtool("test", "rules", "conference-room-reaper.rules.test.yml"))
        .contains("SUCCESS");
  }

  @Test
  void every_alert_links_to_an_existing_runbook_section() throws Exception {
    String rules = Files.readString(Path.of("ops/prometheus/conference-room-reaper.rules.yml"));
    String runbook = Files.readString(Path.of("docs/runbooks/conference-room-reaper.md"));
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("conference-room-reaper\\.md#([a-z-]+)").matcher(rules);
    int links = 0;
    while (m.find()) {
      links++;
      assertThat(runbook)
          .as("runbook section for #%s", m.group(1))
          .contains("## " + m.group(1) + "\n");
    }
    assertThat(links).isGreaterThanOrEqualTo(7);
  }
}
