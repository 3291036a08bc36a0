package pin.messenger.reaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;
import pin.messenger.reaper.testing.Prerequisite;

/**
 * A missing prerequisite fails under {@code CI=true} and skips locally, naming what is missing and
 * how to install it. Each run checks the branch of the environment it runs in ({@code CI=true
 * ./mvnw …} checks the other).
 */
class PrerequisiteTest {

  @Test
  void a_present_prerequisite_lets_the_test_run() {
    assertThatCode(() -> Prerequisite.require("java", true, "nothing to do"))
        .doesNotThrowAnyException();
  }

  @Test
  void a_missing_prerequisite_fails_under_ci_and_skips_locally_naming_it_and_its_install() {
    Throwable t =
        catchThrowable(
            () ->
                Prerequisite.requireExecutable(
                    Path.of("/nonexistent/frobnicator"), "apt-get install frobnicator"));

    assertThat(t)
        .isInstanceOf(Prerequisite.ci() ? AssertionError.class : TestAbortedException.class)
        .hasMessageContaining("/nonexistent/frobnicator is missing")
        .hasMessageContaining("apt-get install frobnicator");
    System.out.println("CI=" + System.getenv("CI") + ": " + t);
  }

  @Test
  void a_command_on_the_path_is_found_and_a_missing_one_is_not() {
    assertThat(Prerequisite.onPath("sh")).isPresent();
    assertThat(Prerequisite.onPath("no-such-command-frobnicator")).isEmpty();
  }
}
