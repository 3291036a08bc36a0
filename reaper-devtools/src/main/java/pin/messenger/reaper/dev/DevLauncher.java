package pin.messenger.reaper.dev;

import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.app.ReaperCli;
import pin.messenger.reaper.bench.ReaperBenchmark;

/**
 * The development launcher behind {@code bin/reaper}: the worker's commands, plus {@code demo} and
 * {@code bench}, and an embedded PostgreSQL for {@code run}, {@code run-once} and {@code migrate}
 * when no database is configured (announced as development mode in its first log line). {@code
 * status} and {@code explain} never start one.
 */
public final class DevLauncher implements ReaperCli.Extension {
  private static final String USAGE =
      """

      Development launcher (bin/reaper) only:
        demo [--duration 60s]   embedded PostgreSQL + a simulated messenger with short timeouts;
                                a line per cycle, and an SLO summary at the end (or at Ctrl-C)
        bench [--quick]         the benchmark of docs/benchmarks.md on a fresh embedded PostgreSQL
                                (full: ~10 min and ~10M rows; --quick: ~3 min, stops at 1M)
        With no database configured, run / run-once / migrate start an embedded PostgreSQL whose
        data is kept in .reaper/pgdata (reaper.embedded.data-dir): development mode, said so in the
        first log line.
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
      case "bench" -> orFailed(command, () -> ReaperBenchmark.run(args));
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
  public String usage() {
    return USAGE;
  }
}
