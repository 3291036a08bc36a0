package pin.messenger.reaper.app.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine;
import pin.messenger.reaper.app.ReaperApplication;
import pin.messenger.reaper.app.config.DatabaseSettings;
import pin.messenger.reaper.app.config.DatasourceUrlSanitizer;

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

  static final String NO_DATABASE =
      "no database configured: set SPRING_DATASOURCE_URL (with SPRING_DATASOURCE_USERNAME and"
          + " SPRING_DATASOURCE_PASSWORD) or --spring.datasource.url=...; nothing was started";

  /**
   * What a launcher adds to the worker's commands: more commands (demo, bench) and a database for
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
    } catch (NotConfiguredException e) {
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

  /**
   * The initializers that give a command its database: none when one is configured; the launcher's
   * development database when it has one and no URL is given at all; otherwise the command fails
   * closed before anything starts. An empty (or blank) URL, e.g. an exported SPRING_DATASOURCE_URL
   * whose secret is missing, names no database: it fails closed like none, and never gets the
   * development database, since whoever set it meant a real one.
   */
  static List<ApplicationContextInitializer<?>> database(List<String> args, Extension extension) {
    String url = DatabaseSettings.url(args);
    if (url != null && !url.isBlank()) {
      return List.of();
    }
    ApplicationContextInitializer<ConfigurableApplicationContext> development =
        url == null ? extension.developmentDatabase() : null;
    if (development == null) {
      throw new NotConfiguredException(NO_DATABASE);
    }
    return List.of(development);
  }

  /**
   * Read-only commands never start a database, not even in development: they need a configured one.
   */
  static void requireDatabase(List<String> args) {
    if (!DatabaseSettings.configured(args)) {
      throw new NotConfiguredException(NO_DATABASE);
    }
  }

  /**
   * Starts the application context for {@code command}; {@code initializers} run after the URL
   * sanitizer.
   */
  public static ConfigurableApplicationContext start(
      String command,
      List<String> args,
      Map<String, Object> defaults,
      List<ApplicationContextInitializer<?>> initializers,
      boolean shutdownHook) {
    return start(
        command, args, defaults, initializers, shutdownHook, List.of(ReaperApplication.class));
  }

  /**
   * The context of a command that runs once: no web server, and of the auto-configurations only
   * {@link OneShotContext}'s (the pool, Flyway).
   */
  static ConfigurableApplicationContext startOneShot(
      String command,
      List<String> args,
      List<ApplicationContextInitializer<?>> initializers,
      boolean shutdownHook) {
    List<String> all = new ArrayList<>(args);
    all.add("--spring.boot.enableautoconfiguration=false");
    return start(
        command,
        all,
        Map.of(),
        initializers,
        shutdownHook,
        List.of(ReaperApplication.class, OneShotContext.class));
  }

  /**
   * The context of a command that reads or acts and prints one answer: only {@link
   * CommandContext}'s beans, no component scan, no auto-configuration but the pool's.
   */
  static ConfigurableApplicationContext startCommand(String command, List<String> args) {
    return start(command, args, Map.of(), List.of(), true, List.of(CommandContext.class));
  }

  /** {@link #start(String, List, Map, List, boolean)} from the configuration {@code sources}. */
  private static ConfigurableApplicationContext start(
      String command,
      List<String> args,
      Map<String, Object> defaults,
      List<ApplicationContextInitializer<?>> initializers,
      boolean shutdownHook,
      List<Class<?>> sources) {
    SpringApplicationBuilder builder =
        new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
            // Only the long-running worker serves HTTP (health, metrics); one-shot commands open no
            // port.
            .web(command.equals("run") ? WebApplicationType.SERVLET : WebApplicationType.NONE)
            .registerShutdownHook(shutdownHook)
            .properties("reaper.command=" + command);
    if (command.equals("run")) {
      // The pool starts without a connection and reconnects on its own (no ERROR line per
      // attempt): run waits for its database (DatabaseStartup) rather than failing at start-up.
      builder.properties("spring.datasource.hikari.initialization-fail-timeout=-1");
    }
    if (!defaults.isEmpty()) {
      builder.application().setDefaultProperties(defaults);
    }
    List<ApplicationContextInitializer<?>> inits = new ArrayList<>();
    inits.add(new DatasourceUrlSanitizer());
    inits.addAll(initializers);
    builder.initializers(inits.toArray(ApplicationContextInitializer[]::new));
    return builder.run(args.toArray(String[]::new));
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

  /** A command that needs something the configuration does not give (the database). */
  static final class NotConfiguredException extends RuntimeException {
    NotConfiguredException(String message) {
      super(message);
    }
  }

  /** A command line that cannot be run as given. */
  public static final class UsageException extends RuntimeException {
    public UsageException(String message) {
      super(message);
    }
  }
}
