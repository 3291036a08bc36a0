package pin.messenger.reaper.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The JDKs on the machine, as the start-up section finds and names them. */
final class Jdks {
  private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"([0-9]+)");
  private static final Pattern RUNTIME_VERSION =
      Pattern.compile("(?m)^JAVA_RUNTIME_VERSION=\"([^\"]+)\"");

  private Jdks() {}

  /** The first Java 17: {@code java} on PATH, then the usual JDK folders. */
  static Optional<Path> findJava17() throws IOException {
    List<Path> candidates = new ArrayList<>();
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty()) {
        candidates.add(Path.of(dir, "java"));
      }
    }
    for (String parent : List.of("/usr/lib/jvm", "/opt/java")) {
      if (Files.isDirectory(Path.of(parent))) {
        try (DirectoryStream<Path> homes = Files.newDirectoryStream(Path.of(parent))) {
          homes.forEach(h -> candidates.add(h.resolve("bin").resolve("java")));
        }
      }
    }
    for (Path c : candidates) {
      if (Files.isExecutable(c) && feature(c).orElse(0) == 17) {
        return Optional.of(c.toRealPath());
      }
    }
    return Optional.empty();
  }

  /** The java {@code bin/reaper which-java} picks in the bench's own environment. */
  static String picked(Launcher launcher) throws Exception {
    Child.Exit exit =
        Child.toExit(
            new ProcessBuilder(launcher.command(List.of("which-java")))
                .redirectError(ProcessBuilder.Redirect.DISCARD),
            java.time.Duration.ofMinutes(1));
    if (exit.status() != 0) {
      throw new IllegalStateException("bin/reaper which-java failed");
    }
    return exit.output().trim();
  }

  /** The feature version from the java's home's {@code release} file. */
  static OptionalInt feature(Path java) {
    Matcher m = JAVA_VERSION.matcher(release(java));
    return m.find() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
  }

  /** The runtime version and the path, for the report. */
  static String runtimeVersion(Path java) {
    Matcher m = RUNTIME_VERSION.matcher(release(java));
    return (m.find() ? m.group(1) : "version unknown") + " (" + java + ")";
  }

  private static String release(Path java) {
    try {
      Path bin = java.toRealPath().getParent();
      Path home = bin == null ? null : bin.getParent();
      return home == null ? "" : Files.readString(home.resolve("release"));
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
