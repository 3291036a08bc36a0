package pin.messenger.reaper.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs beyond the JDK and Maven (a Debian package, a tool on the PATH, a system
 * property). Under {@code CI=true} a missing prerequisite is a <b>failure</b> naming it and how
 * {@code .ci/run} installs it: a proof that does not run must not look like one that passed.
 * Locally the test is aborted (reported as skipped) with the same reason.
 */
public final class Prerequisite {
  private Prerequisite() {}

  /**
   * True when the environment variable {@code CI} is set to anything but empty, {@code false} or
   * {@code 0} (GitHub Actions, GitLab and most CI systems set {@code CI=true}).
   */
  public static boolean ci() {
    String ci = System.getenv("CI");
    if (ci == null) {
      return false;
    }
    String v = ci.strip().toLowerCase(Locale.ROOT);
    return !v.isEmpty() && !v.equals("false") && !v.equals("0");
  }

  /**
   * Passes when {@code present}; otherwise fails the test under CI, or aborts it locally.
   *
   * @param what what the test needs, e.g. {@code "pgbouncer (/usr/sbin/pgbouncer)"}
   * @param present whether it is there
   * @param howToInstall how to get it, e.g. {@code "apt-get install pgbouncer (.ci/run installs
   *     it)"}
   */
  public static void require(String what, boolean present, String howToInstall) {
    if (present) {
      return;
    }
    String reason = what + " is missing: " + howToInstall;
    if (ci()) {
      throw new AssertionError("CI=true and a prerequisite is missing: " + reason);
    }
    Assumptions.abort("skipped, " + reason);
  }

  /** {@link #require} for an executable file at a fixed path. */
  public static Path requireExecutable(Path file, String howToInstall) {
    require(file.toString(), Files.isExecutable(file), howToInstall);
    return file;
  }

  /** {@link #require} for a command on the {@code PATH}; returns its path. */
  public static Path requireOnPath(String command, String howToInstall) {
    Optional<Path> found = onPath(command);
    require(command + " on the PATH", found.isPresent(), howToInstall);
    return found.orElseThrow();
  }

  /** The first executable {@code command} on the {@code PATH}. */
  public static Optional<Path> onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.of(path.split(java.io.File.pathSeparator))
        .filter(dir -> !dir.isEmpty())
        .map(dir -> Path.of(dir, command))
        .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
        .findFirst();
  }
}
