package pin.messenger.reaper.app.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine;

/**
 * The worker's command line: finds the command asked for ({@link CliCommand}, one class each),
 * parses its options with picocli, runs it, and turns a bad command line into exit status {@value
 * #EXIT_USAGE} with the problem named. Spring-style {@code --reaper.x=y} options pass through to
 * the application.
 *
 * <p>The production jar fails closed: a command that needs the database refuses to start without a
 * configured {@code spring.datasource.url}, with one line on stderr and exit status {@value
 * #EXIT_NOT_CONFIGURED}. Only a launcher that passes an {@link Extension} with a development
 * database (reaper-devtools) starts one instead.
 */
public final class ReaperCli {
  /** sysexits' EX_CONFIG: the process cannot run as configured. */
  public static final int EXIT_NOT_CONFIGURED = 78;

  /** A command line that cannot be run as given. */
  static final int EXIT_USAGE = 2;

  /**
   * What a launcher adds to the worker's commands: more commands (demo) and a database for
   * development when none is configured. The production jar runs with {@link #NONE}.
   */
  public interface Extension {
    Extension NONE = new Extension() {};

    /**
     * Runs {@code command} and returns its exit code, or {@code null} when it is not one of this
     * launcher's.
     */
    default @Nullable Integer command(String command, List<String> args) {
      return null;
    }

    /**
     * An initializer that provides a database when none is configured, or {@code null} to fail
     * closed.
     */
    default @Nullable ApplicationContextInitializer<ConfigurableApplicationContext>
        developmentDatabase() {
      return null;
    }

    /** How this launcher is started, for the first usage line. */
    default String invocation() {
      return "java -jar conference-room-reaper.jar";
    }

    /** Usage lines of this launcher's own commands, after the worker's. */
    default String usage() {
      return "";
    }

    /** What the commands do without a database, the usage text's last paragraph. */
    default String databaseRule() {
      return CliUsage.DATABASE_RULE;
    }
  }

  private ReaperCli() {}

  /**
   * Runs a command of the production jar; returns the exit code, or -1 for the long-running worker.
   */
  public static int run(String[] args) {
    return run(args, Extension.NONE);
  }

  /**
   * Runs a command; returns the exit code, or -1 for the long-running worker (the JVM stays up).
   */
  public static int run(String[] args, Extension extension) {
    return run(args, new CliContext(System.out, System.err, extension));
  }

  static int run(String[] args, CliContext cli) {
    List<String> rest = new ArrayList<>(List.of(args));
    // Options alone mean run (bin/reaper --reaper.x=y); --help alone is help.
    String name =
        rest.isEmpty() || (rest.get(0).startsWith("--") && !rest.get(0).equals("--help"))
            ? "run"
            : rest.remove(0);
    Extension extension = cli.extension();
    // A command whose stdout is a JSON document says a bad command line in one as well, so that
    // `... --json | jq` reads an error rather than nothing.
    boolean json = List.of(args).contains("--json");
    CliCommand command = CliCommands.named(name);
    CommandLine line = null;
    try {
      Integer own = extension.command(name, rest);
      if (own != null) {
        return own;
      }
      if (name.equals("help") || name.equals("--help") || name.equals("-h")) {
        return help(cli, rest);
      }
      if (command == null) {
        String message = "unknown command '" + name + "'";
        cli.err()
            .println("conference-room-reaper: " + message + "\n\n" + CliUsage.usage(extension));
        if (json) {
          cli.out().println(CliJson.error(message));
        }
        return EXIT_USAGE;
      }
      json |= command instanceof CliCommand.PrintsDocument;
      if (command instanceof CommandBase base && CommandBase.onlySpringOptions(rest)) {
        // Nothing for picocli to read (`run`, `run-once` as a deployment starts them): building its
        // model of the command costs a start-up a few hundred milliseconds, so it is skipped.
        base.rest.addAll(rest);
      } else {
        line = new CommandLine(command).setExpandAtFiles(false);
        if (line.parseArgs(rest.toArray(String[]::new)).isUsageHelpRequested()) {
          cli.out().print(CliUsage.of(line, extension));
          return 0;
        }
      }
      command.run(cli);
      return cli.status();
    } catch (CommandLine.ParameterException | UsageException e) {
      String message = message(e);
      // The usage is built only when it is printed: it reads every command's annotations.
      String help =
          line != null
              ? CliUsage.of(line, extension)
              : command != null
                  ? CliUsage.of(new CommandLine(command), extension)
                  : CliUsage.usage(extension);
      cli.err().println("conference-room-reaper " + name + ": " + message + "\n\n" + help);
      if (json) {
        cli.out().println(CliJson.error(message));
      }
      return EXIT_USAGE;
    } catch (ApplicationContexts.NotConfiguredException e) {
      cli.err().println("conference-room-reaper " + name + ": " + e.getMessage());
      return EXIT_NOT_CONFIGURED;
    }
  }

  /** {@code help}: the usage text; {@code help <command>}: that command's. */
  private static int help(CliContext cli, List<String> rest) {
    CliCommand command = rest.size() == 1 ? CliCommands.named(rest.get(0)) : null;
    cli.out()
        .print(
            command == null
                ? CliUsage.usage(cli.extension())
                : CliUsage.of(new CommandLine(command), cli.extension()));
    return 0;
  }

  /**
   * What a bad command line is told: a converter's own refusal as it is (it names the option and
   * the accepted forms), an option without its value as {@code --x needs a value}, else picocli's.
   */
  private static String message(RuntimeException e) {
    if (e.getCause() instanceof UsageException refusal) {
      return String.valueOf(refusal.getMessage());
    }
    if (e instanceof CommandLine.MissingParameterException missing
        && missing.getMissing().size() == 1
        && missing.getMissing().get(0) instanceof CommandLine.Model.OptionSpec option) {
      return option.longestName() + " needs a value";
    }
    return String.valueOf(e.getMessage());
  }

  /** Only {@code --name=value} options reach Spring; anything else is a typo worth naming. */
  public static void checkOptions(List<String> args) {
    for (String a : args) {
      if (!a.startsWith("--") || !a.contains("=")) {
        throw new UsageException("unexpected argument '" + a + "' (options are --name=value)");
      }
    }
  }

  public static void awaitQuietly(CountDownLatch latch, int seconds) {
    try {
      latch.await(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The message of the failure and of each cause under it, so the JSON names the real problem. */
  public static String describe(Throwable e) {
    StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
        b.append(": ").append(c.getMessage());
      }
    }
    return b.toString();
  }

  /** A command line that cannot be run as given. */
  public static final class UsageException extends RuntimeException {
    public UsageException(String message) {
      super(message);
    }
  }
}
