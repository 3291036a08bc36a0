package pin.messenger.reaper.app;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.telemetry.QueuedConsoleAppender;

/**
 * The worker's commands. Spring-style {@code --reaper.x=y} options pass through to the application.
 *
 * <p>The production jar fails closed: a command that needs the database refuses to start without a
 * configured {@code spring.datasource.url}, with one line on stderr and exit status {@value
 * #EXIT_NOT_CONFIGURED}. Only a launcher that passes an {@link Extension} with a development
 * database (reaper-devtools) starts one instead.
 */
public final class ReaperCli {
  /** sysexits' EX_CONFIG: the process cannot run as configured. */
  public static final int EXIT_NOT_CONFIGURED = 78;

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
      return DATABASE_RULE;
    }
  }

  /** The worker's commands, in every launcher's usage text. */
  static final String COMMANDS =
      """
        run                     the worker: a cycle every reaper.polling-interval until SIGTERM / Ctrl-C
        run-once [--dry-run]    one cycle; the last stdout line is one JSON object with its counters
                                (--dry-run: claim and decide, then roll back: changes nothing)
        migrate                 apply the schema migrations and exit
        status [--json]         per phase the due count and oldest due age, who holds the run lock,
                                the runners (live, and silent ones with how long), poison rows,
                                pending Kafka/recorder/realtime deliveries (read-only)
        explain <id> [--json]   one conference: status, timestamps, which phase matches or when it
                                will, whether its row is locked and by whom, its last 5 errors,
                                its outbox rows

      Operator actions (every runner obeys them at its next cycle; each prints what it changes and
      writes an audit row in the same transaction; --actor A names who acts, default the OS user):
        pause [--phase P] --reason "..." [--for 30m]
                                pause one phase (empty-room, provision-timeout, stale-live) or,
                                without --phase, the whole reaper; --for: it ends by itself
                                (a duration is 30s, 15m, 2h, 1d or ISO-8601 PT30M; no bare number)
        resume [--phase P] [--yes]
                                lift a phase's pause in force, or without --phase every pause; a
                                phase held only by a whole-reaper pause is lifted with the whole
        retry <id> | retry --poison [--yes]
                                end the poison backoff of one conference or of all: the next cycle
                                tries them again (their error history stays)
        requeue --kafka-quarantined|--recorder-given-up [--since T] [--yes]
                                quarantined outbox rows / given-up recorder stop requests back to
                                pending with the same ids (ce_id / Idempotency-Key); T is an
                                instant (2026-12-02T10:00:00Z) or a duration ago (2h)
        end <id> --reason "..." [--started-at T | --without-event]
                                close a conference now exactly as the reaper's phase would (status,
                                end reason, outbox, realtime and recorder-stop rows); refused when
                                the reaper would not close it now; a meeting without a usable
                                started_at needs a choice: --started-at T (an instant) or
                                --without-event (no conference-ended event, no duration)
        audit [--limit N] [--action A] [--actor NAME] [--since T] [--json]
                                the newest operator actions (default 20), each with the ids it
                                changed and the database role beside the actor (worker role may read)
        (pause, resume, retry, requeue also take --reason "..." and --json)

        help, -h, --help        this text
      """;

  static final String EXIT_STATUS =
      """

      Exit status: 0 done; 1 failed (database error; {"error":...}); 2 bad command line (unknown
      command or option, malformed id, unknown phase, missing --reason, bad --for/--since/--limit),
      nothing started (with --json, and for run-once and migrate, also {"error":...} on stdout);
      3 nothing matched (unknown conference, nothing paused/quarantined/given up; end refused:
      terminal, not due in any phase, rejected as the reaper rejects it), nothing changed;
      4 more than one row matched without --yes, or end needs --started-at/--without-event: the
      plan or the choice is printed, nothing changed; 78 no database configured.
      """;

  /** The production jar's rule: no database, no command. */
  static final String DATABASE_RULE =
      """

      Database: SPRING_DATASOURCE_URL, SPRING_DATASOURCE_USERNAME, SPRING_DATASOURCE_PASSWORD
      (or --spring.datasource.url=...), required: an empty one counts as none, and
      without it every command but help exits with status 78 and one line naming
      SPRING_DATASOURCE_URL, before anything starts.
      """;

  /** The usage text of a launcher: its name, the worker's commands, its own, its rules. */
  static String usage(Extension extension) {
    return "usage: "
        + extension.invocation()
        + " <command> [--reaper.<option>=<value> ...]\n\n"
        + COMMANDS
        + extension.usage()
        + EXIT_STATUS
        + extension.databaseRule();
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
    List<String> rest = new ArrayList<>(List.of(args));
    // Options alone mean run (bin/reaper --reaper.x=y); --help alone is help.
    String command =
        rest.isEmpty() || (rest.get(0).startsWith("--") && !rest.get(0).equals("--help"))
            ? "run"
            : rest.remove(0);
    String usage = usage(extension);
    // A command whose stdout is a JSON document says a bad command line in one as well, so that
    // `... --json | jq` reads an error rather than nothing.
    boolean json =
        List.of(args).contains("--json") || command.equals("run-once") || command.equals("migrate");
    try {
      Integer own = extension.command(command, rest);
      if (own != null) {
        return own;
      }
      return switch (command) {
        case "run" -> {
          checkOptions(rest);
          start("run", rest, Map.of(), database(rest, extension), true);
          yield -1;
        }
        case "run-once" -> runOnce(rest, extension);
        case "migrate" -> migrate(rest, extension);
        case "status" -> StatusCommand.status(rest);
        case "explain" -> StatusCommand.explain(rest);
        case "pause" -> OperatorCommand.pause(rest);
        case "resume" -> OperatorCommand.resume(rest);
        case "retry" -> OperatorCommand.retry(rest);
        case "requeue" -> OperatorCommand.requeue(rest);
        case "end" -> EndCommand.end(rest);
        case "audit" -> AuditCommand.audit(rest);
        case "help", "--help", "-h" -> {
          System.out.print(usage);
          yield 0;
        }
        default -> {
          String message = "unknown command '" + command + "'";
          System.err.println("conference-room-reaper: " + message + "\n\n" + usage);
          if (json) {
            System.out.println(CliJson.error(message));
          }
          yield 2;
        }
      };
    } catch (UsageException e) {
      System.err.println(
          "conference-room-reaper " + command + ": " + e.getMessage() + "\n\n" + usage);
      if (json) {
        System.out.println(CliJson.error(String.valueOf(e.getMessage())));
      }
      return 2;
    } catch (NotConfiguredException e) {
      System.err.println("conference-room-reaper " + command + ": " + e.getMessage());
      return EXIT_NOT_CONFIGURED;
    }
  }

  /**
   * The initializers that give a command its database: none when one is configured; the launcher's
   * development database when it has one and no URL is given at all; otherwise the command fails
   * closed before anything starts. An empty (or blank) URL, e.g. an exported SPRING_DATASOURCE_URL
   * whose secret is missing, names no database: it fails closed like none, and never gets the
   * development database, since whoever set it meant a real one.
   */
  private static List<ApplicationContextInitializer<?>> database(
      List<String> args, Extension extension) {
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
    SpringApplicationBuilder builder =
        new SpringApplicationBuilder(ReaperApplication.class)
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
    List<ApplicationContextInitializer<?>> all = new ArrayList<>();
    all.add(new DatasourceUrlSanitizer());
    all.addAll(initializers);
    builder.initializers(all.toArray(ApplicationContextInitializer[]::new));
    return builder.run(args.toArray(String[]::new));
  }

  private static int runOnce(List<String> args, Extension extension) {
    boolean dryRun = args.remove("--dry-run");
    checkOptions(args);
    List<ApplicationContextInitializer<?>> database = database(args, extension);
    AtomicBoolean stopping = new AtomicBoolean();
    AtomicReference<@Nullable Delivery> delivering = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    // SIGTERM during the cycle: its open batch rolls back whole (or has committed), the lock is
    // released. During the delivery pass: the pass stops at once, what it did not deliver stays
    // pending for the next run.
    Thread hook =
        new Thread(
            () -> {
              stopping.set(true);
              Delivery d = delivering.get();
              if (d != null) {
                d.stop();
              }
              awaitQuietly(done, 60);
            },
            "run-once-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    String json;
    int code = 0;
    try (ConfigurableApplicationContext ctx = start("run-once", args, Map.of(), database, false)) {
      ConferenceRoomReaper reaper = ctx.getBean(ConferenceRoomReaper.class);
      Clock clock = ctx.getBean(Clock.class);
      CycleResult result =
          // The cycle takes its moment from reaper.clock, like the periodic loop.
          dryRun ? reaper.dryRun() : reaper.runOnce(stopping::get);
      RunOnceDocument document = RunOnceDocument.of(result);
      Delivery delivery = ctx.getBean(Delivery.class);
      // Published before the check below: a SIGTERM from now on reaches the pass (the hook sets
      // stopping, then reads this), or the pass is never begun.
      delivering.set(delivery);
      if (!dryRun && !stopping.get()) {
        // Deliver what this cycle (or an earlier one) left, bounded by the cycle's own time budget.
        Delivery.Drained drained =
            delivery.drain(
                clock.instant(), ctx.getBean(ConferenceRoomReaperOptions.class).maxRunDuration());
        document = document.delivered(drained.published(), drained.recorderStopsDelivered());
      }
      json = CliJson.write(document);
    } catch (RuntimeException | java.sql.SQLException e) {
      json = CliJson.error(Failures.report("run-once", e));
      code = 1;
    } catch (Error e) {
      done.countDown();
      throw e;
    }
    // The document is the last line: every log line queued before it is written first.
    QueuedConsoleAppender.flushAll();
    System.out.println(json);
    // Only now may a SIGTERM's hook return and the JVM end: the document is out.
    done.countDown();
    return code;
  }

  private static int migrate(List<String> args, Extension extension) {
    checkOptions(args);
    List<ApplicationContextInitializer<?>> database = database(args, extension);
    List<String> withFlyway = new ArrayList<>(args);
    withFlyway.add("--spring.flyway.enabled=true");
    String json;
    int code = 0;
    try (ConfigurableApplicationContext ctx =
        start("migrate", withFlyway, Map.of(), database, true)) {
      // Boot's Flyway support (spring.flyway.* settings, e.g. an owner role) migrated during
      // start-up.
      MigrationInfo current = ctx.getBean(Flyway.class).info().current();
      String version = current == null ? "none" : current.getVersion().getVersion();
      json = CliJson.write(new MigrateDocument(true, version, null));
    } catch (RuntimeException e) {
      json = CliJson.write(new MigrateDocument(false, null, Failures.report("migrate", e)));
      code = 1;
    }
    // The document is the last line: every log line queued before it is written first.
    QueuedConsoleAppender.flushAll();
    System.out.println(json);
    return code;
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

  /** What {@code migrate} prints: the schema version reached, or why it failed. */
  record MigrateDocument(
      boolean migrated,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String schemaVersion,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String error) {}

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
