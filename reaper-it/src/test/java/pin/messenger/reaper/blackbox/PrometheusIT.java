package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.Prerequisite;

/**
 * A real Prometheus (Debian's) scrapes a running worker: the rules load and evaluate, and every
 * query of the Grafana dashboard returns without error (ops/verify-with-prometheus.sh). CI installs
 * the package.
 */
class PrometheusIT {
  @Test
  void a_real_prometheus_scrapes_the_worker_loads_the_rules_and_answers_every_dashboard_query()
      throws Exception {
    // What ops/verify-with-prometheus.sh runs besides java.
    Prerequisite.requireExecutable(
        Path.of("/usr/bin/prometheus"), "apt-get install prometheus (.ci/run installs it)");
    Prerequisite.requireExecutable(
        Path.of("/usr/bin/promtool"), "apt-get install prometheus (.ci/run installs it)");
    Prerequisite.requireOnPath("python3", "apt-get install python3 (.ci/run installs it)");
    Prerequisite.requireOnPath("curl", "apt-get install curl (.ci/run installs it)");
    ProcessBuilder pb =
        new ProcessBuilder("bash", "ops/verify-with-prometheus.sh", JarRunner.DEV_JAR.toString())
            .redirectErrorStream(true);
    // The script's worker JVM with the flags of every JVM the tests start (CPU, not behaviour).
    pb.environment().put("JDK_JAVA_OPTIONS", String.join(" ", JarRunner.JVM));
    // The rules' unit tests are AlertRulesTest's: run once per suite, not twice.
    pb.environment().put("SKIP_RULE_TESTS", "1");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
    System.out.println(out);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("PASS");
  }
}
