package pin.messenger.reaper.dev;

import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.app.cli.ReaperCli;

/**
 * The development launcher behind {@code bin/reaper}: the worker's commands, plus {@code demo}, and
 * an embedded PostgreSQL for {@code run}, {@code run-once} and {@code migrate} when no database is
 * configured (announced as development mode in its first log line). {@code status}, {@code explain}
 * and the operator actions never start one, nor does an empty {@code SPRING_DATASOURCE_URL}.
 */
public final class DevLauncher implements ReaperCli.Extension {
  private static final String USAGE =
      """

      Development launcher (bin/reaper) only:
        demo [--duration 60s]   a fresh embedded PostgreSQL + a simulated messenger with short
                                timeouts; a line per cycle, an SLO summary at the end (or Ctrl-C)
        bench [--quick] [--only <sections>]
                                the benchmarks of docs/benchmarks.md (sections and durations
                                there); their own jar (module reaper-bench), built on first use
        prepare [worker|dev]    build, unpack and train the start-up caches of both jars (or one), then exit
        which-java              the java bin/reaper would use (stdout); its version and start-up
                                cache (stderr)
      """;

  private static final String DATABASE_RULE =
      """

      Database: SPRING_DATASOURCE_URL, SPRING_DATASOURCE_USERNAME, SPRING_DATASOURCE_PASSWORD
      (or --spring.datasource.url=...): bin/reaper then runs the production jar. Without one,
      run, run-once and migrate start an embedded PostgreSQL whose data is kept in .reaper/pgdata
      (reaper.embedded.data-dir), said so in their first log line; every other command (status,
      explain and the operator actions) exits with status 78 and one line naming
      SPRING_DATASOURCE_URL, before anything starts. An empty SPRING_DATASOURCE_URL names no
      database: every command that needs one exits with status 78, run included.
      """;

  public static void main(String[] args) {
    int code = ReaperCli.run(args, new DevLauncher());
    if (code >= 0) {
      System.exit(code);
    }
  }

  @Override
  public @Nullable Integer command(String command, List<String> args) {
    return switch (command) {
      case "demo" -> DemoCommand.run(args);
      case "train-archive" -> orFailed(command, () -> TrainArchive.run(args));
      default -> null;
    };
  }

  /**
   * Runs a tool; an exception becomes one {@code <command> failed: …} line on stderr and exit 1.
   */
  private static int orFailed(String command, Callable<Integer> tool) {
    try {
      return tool.call();
    } catch (Exception e) {
      System.err.println(command + " failed: " + ReaperCli.describe(e));
      return 1;
    }
  }

  @Override
  public ApplicationContextInitializer<ConfigurableApplicationContext> developmentDatabase() {
    return new EmbeddedPostgresInitializer(false);
  }

  @Override
  public String invocation() {
    return "bin/reaper";
  }

  @Override
  public String usage() {
    return USAGE;
  }

  @Override
  public String databaseRule() {
    return DATABASE_RULE;
  }
}
