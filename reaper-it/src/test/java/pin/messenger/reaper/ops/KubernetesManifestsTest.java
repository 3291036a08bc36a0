package pin.messenger.reaper.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.Prerequisite;

/**
 * The Kubernetes manifests of {@code ops/kubernetes} pass {@code validate.mjs}: every kustomization
 * built by {@code kubectl kustomize} and every object, as written and as built, against the API
 * schemas (kubernetes-models, offline); the kustomization against its folder, the PrometheusRule
 * against {@code ops/prometheus/*.rules.yml}, and the deployment's security, probe, resource,
 * secret and network-policy checks. No check may print {@code skip}.
 *
 * <p>Needs Node.js 18+, npm and kubectl 1.21+ (kustomize v4+; no cluster) on the PATH; without
 * them: a failure under {@code CI=true}, skipped (saying why) on a developer machine. The first run
 * installs the pinned validators ({@code npm ci}, from the npm registry) into {@code
 * ops/kubernetes/node_modules}; later runs are offline.
 */
class KubernetesManifestsTest {
  static final String VALIDATOR = "ops/kubernetes/validate.mjs";
  static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
  static final Duration VALIDATE_TIMEOUT = Duration.ofMinutes(2);

  @Test
  void kubernetes_manifests_pass_their_offline_schema_and_policy_checks() throws Exception {
    String howToInstall = "apt-get install nodejs npm (Node.js 18+; .ci/run installs them)";
    Path node = Prerequisite.requireOnPath("node", howToInstall);
    Path npm = Prerequisite.requireOnPath("npm", howToInstall);
    Path kubectl =
        Prerequisite.requireOnPath(
            "kubectl",
            "kubectl 1.21 or newer, for `kubectl kustomize` (Debian's kubernetes-client 1.20 is too"
                + " old; .ci/run cannot install it)");
    Path dir = repositoryRoot().resolve("ops/kubernetes");

    if (needsInstall(dir)) {
      Result install = run(dir, INSTALL_TIMEOUT, Map.of(), npm, "ci", "--no-audit", "--no-fund");
      assertThat(install.exitCode()).as("npm ci in %s failed:%n%s", dir, install.output()).isZero();
    }
    Result validate =
        run(dir, VALIDATE_TIMEOUT, Map.of("KUBECTL", kubectl.toString()), node, "validate.mjs");

    assertThat(validate.exitCode()).as("node validate.mjs failed:%n%s", validate.output()).isZero();
    assertThat(validate.output())
        .as(validate.output())
        .containsPattern("(?m)^\\d+ passed, 0 failed$")
        .doesNotContainPattern("(?m)^skip ");
  }

  /**
   * The folder holding {@code ops/kubernetes/validate.mjs}: the working directory or one above it
   * (a module).
   */
  static Path repositoryRoot() {
    Path start = Path.of("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve(VALIDATOR))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        VALIDATOR + " not found in " + start + " or any folder above it");
  }

  /**
   * No install yet, or the lock file changed since the last one (npm keeps a copy in node_modules).
   */
  static boolean needsInstall(Path dir) throws IOException {
    Path installed = dir.resolve("node_modules/.package-lock.json");
    return !Files.isRegularFile(installed)
        || Files.getLastModifiedTime(dir.resolve("package-lock.json"))
                .compareTo(Files.getLastModifiedTime(installed))
            > 0;
  }

  record Result(int exitCode, String output) {}

  /**
   * Runs a command in {@code dir}; stdout and stderr together go to a file, so a full pipe cannot
   * stall it.
   */
  static Result run(
      Path dir, Duration timeout, Map<String, String> env, Path program, String... args)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(program.toString()));
    command.addAll(List.of(args));
    Path log = Files.createTempFile("kubernetes-manifests-", ".log");
    try {
      ProcessBuilder pb =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
      pb.redirectOutput(log.toFile());
      pb.environment().put("npm_config_update_notifier", "false");
      pb.environment().putAll(env);
      Process p = pb.start();
      boolean finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(finished)
          .as("%s did not finish within %s:%n%s", String.join(" ", command), timeout, output)
          .isTrue();
      return new Result(p.exitValue(), output);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
