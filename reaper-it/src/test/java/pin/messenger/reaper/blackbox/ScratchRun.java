package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A command of the jars or the launcher run to its end from a scratch directory, with exactly the
 * environment given, its standard output and error in {@code stdout.txt} and {@code stderr.txt}:
 * how the fail-closed, error-document and launcher tests start them. A command that outlives the
 * ceiling is killed with what it started, and the test fails.
 */
final class ScratchRun {
  record Result(int exit, String stdout, String stderr) {}

  private ScratchRun() {}

  /**
   * The caller's environment without its {@code SPRING_*} and {@code REAPER_*} variables (nothing
   * from the developer's shell points a jar at a database), plus {@code extra}.
   */
  static Map<String, String> withoutReaperSettings(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.keySet().removeIf(k -> k.startsWith("SPRING_") || k.startsWith("REAPER_"));
    env.putAll(extra);
    return env;
  }

  /** {@code command} in {@code dir} with {@link #withoutReaperSettings}({@code extra}). */
  static Result run(Path dir, Map<String, String> extra, List<String> command) throws Exception {
    return run(dir, dir, withoutReaperSettings(extra), command);
  }

  /**
   * {@code command} from {@code cwd} with exactly {@code env}; its output files in {@code outputs}.
   */
  static Result run(Path cwd, Path outputs, Map<String, String> env, List<String> command)
      throws Exception {
    Path out = outputs.resolve("stdout.txt");
    Path err = outputs.resolve("stderr.txt");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(cwd.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    // A start that fails closed takes seconds; the ceiling is for a loaded machine.
    assertThat(JarRunner.finished(p, 180)).as(command.get(0) + " finished").isTrue();
    return new Result(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
