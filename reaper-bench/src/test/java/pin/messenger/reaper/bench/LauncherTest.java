package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding {@code bin/reaper} and the environment its children get. */
class LauncherTest {
  @TempDir Path repo;

  private void launcherAndJar(boolean jar) throws Exception {
    Path bin = Files.createDirectories(repo.resolve("bin")).resolve("reaper");
    Files.writeString(bin, "#!/bin/sh\n");
    Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
    if (jar) {
      Path worker = repo.resolve(Launcher.WORKER_JAR);
      Files.createDirectories(worker.getParent());
      Files.writeString(worker, "jar");
    }
  }

  @Test
  void the_launcher_is_found_from_a_folder_below_the_repository_root() throws Exception {
    launcherAndJar(true);
    Path below = Files.createDirectories(repo.resolve("docs/charts"));

    Launcher launcher = Launcher.find("startup", below);

    assertThat(launcher.root()).isEqualTo(repo);
    assertThat(launcher.workerJar()).isEqualTo(repo.resolve(Launcher.WORKER_JAR));
    assertThat(launcher.command(List.of("run-once")))
        .containsExactly(repo + "/bin/reaper", "run-once");
  }

  @Test
  void a_launcher_without_a_built_production_jar_is_an_error_naming_the_section_and_the_jar()
      throws Exception {
    launcherAndJar(false);

    assertThatThrownBy(() -> Launcher.find("shipped-drain", repo))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("--only shipped-drain")
        .hasMessageContaining(Launcher.WORKER_JAR);
  }

  @Test
  void a_worker_gets_the_database_and_none_of_the_knobs_that_change_what_is_measured()
      throws Exception {
    launcherAndJar(true);
    ProcessBuilder pb =
        Launcher.find("shipped-cycle", repo).worker("jdbc:postgresql://h/db", List.of("run-once"));

    assertThat(pb.environment())
        .containsEntry("SPRING_DATASOURCE_URL", "jdbc:postgresql://h/db")
        .doesNotContainKeys("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")
        .allSatisfy(
            (k, v) ->
                assertThat(k.startsWith("REAPER_") || k.startsWith("LOGGING_")).as(k).isFalse());
    assertThat(pb.environment().keySet().stream().filter(k -> k.startsWith("SPRING_")))
        .containsExactly("SPRING_DATASOURCE_URL");
  }
}
