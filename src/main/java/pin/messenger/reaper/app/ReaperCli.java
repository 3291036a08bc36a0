package pin.messenger.reaper.app;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;

/** The {@code bin/reaper} commands. Spring-style {@code --reaper.x=y} options pass through to the application. */
final class ReaperCli {
  static final String USAGE =
      """
      usage: bin/reaper <command> [--reaper.<option>=<value> ...]

        run                     the worker: a cycle every reaper.polling-interval until SIGTERM / Ctrl-C
        run-once [--dry-run]    one cycle; the last stdout line is one JSON object with its counters
                                (--dry-run: claim and decide, then roll back: changes nothing)
        migrate                 apply the schema migrations and exit
        demo [--duration 60s]   embedded PostgreSQL + a simulated messenger with short timeouts;
                                a line per cycle, and an SLO summary at the end (or at Ctrl-C)
        status [--json]         per phase the due count and oldest due age, who holds the run lock,
                                poison rows, pending Kafka/recorder/realtime deliveries (read-only)
        explain <id> [--json]   one conference: status, timestamps, which phase matches or when it
                                will, whether its row is locked and by whom, its outbox rows
        bench [--quick]         the benchmark of docs/benchmarks.md on a fresh embedded PostgreSQL
                                (full: ~10 min and ~10M rows; --quick: ~3 min, stops at 1M)
        help                    this text

      Database: SPRING_DATASOURCE_URL, SPRING_DATASOURCE_USERNAME, SPRING_DATASOURCE_PASSWORD
      (or --spring.datasource.url=...). With none set, run / run-once / migrate start an embedded
      PostgreSQL whose data is kept in .reaper/pgdata (reaper.embedded.data-dir).
      """;

  private ReaperCli() {}

  /** Runs a command; returns the exit code, or -1 for the long-running worker (the JVM stays up). */
  static int run(String[] args) {
    List<String> rest = new ArrayList<>(List.of(args));
    String command = rest.isEmpty() || rest.get(0).startsWith("--") ? "run" : rest.remove(0);
    try {
      return switch (command) {
        case "run" -> {
          checkOptions(rest);
          start("run", rest, Map.of(), List.of(), true);
          yield -1;
        }
        case "run-once" -> runOnce(rest);
        case "migrate" -> migrate(rest);
        case "demo" -> DemoCommand.run(rest);
        case "status" -> StatusCommand.status(rest);
        case "bench" -> {
          try {
            yield pin.messenger.reaper.bench.ReaperBenchmark.run(rest);
          } catch (Exception e) {
            System.err.println("bench failed: " + describe(e));
            yield 1;
          }
        }
        case "explain" -> StatusCommand.explain(rest);
        case "help", "--help", "-h" -> {
          System.out.print(USAGE);
          yield 0;
        }
        default -> {
          System.err.println("bin/reaper: unknown command '" + command + "'\n\n" + USAGE);
          yield 2;
        }
      };
    } catch (UsageException e) {
      System.err.println("bin/reaper " + command + ": " + e.getMessage() + "\n\n" + USAGE);
      return 2;
    }
  }

  static ConfigurableApplicationContext start(
      String command,
      List<String> args,
      Map<String, Object> defaults,
      List<ApplicationContextInitializer<?>> initializers,
      boolean shutdownHook) {
    SpringApplicationBuilder builder =
        new SpringApplicationBuilder(ReaperApplication.class)
            // Only the long-running worker serves HTTP (health, metrics); one-shot commands open no port.
            .web(command.equals("run") ? WebApplicationType.SERVLET : WebApplicationType.NONE)
            .registerShutdownHook(shutdownHook)
            .properties("reaper.command=" + command);
    if (!defaults.isEmpty()) {
      builder.application().setDefaultProperties(defaults);
    }
    List<ApplicationContextInitializer<?>> all = new ArrayList<>();
    all.add(new DatasourceUrlSanitizer());
    all.addAll(initializers);
    all.add(new EmbeddedPostgresInitializer(false));
    builder.initializers(all.toArray(ApplicationContextInitializer[]::new));
    return builder.run(args.toArray(String[]::new));
  }

  private static int runOnce(List<String> args) {
    boolean dryRun = args.remove("--dry-run");
    checkOptions(args);
    AtomicBoolean stopping = new AtomicBoolean();
    CountDownLatch done = new CountDownLatch(1);
    // SIGTERM during the cycle: its open batch rolls back whole (or has committed), the lock is released.
    Thread hook =
        new Thread(
            () -> {
              stopping.set(true);
              awaitQuietly(done, 60);
            },
            "run-once-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    String json;
    int code = 0;
    try (ConfigurableApplicationContext ctx = start("run-once", args, Map.of(), List.of(), false)) {
      ConferenceRoomReaper reaper = ctx.getBean(ConferenceRoomReaper.class);
      Clock clock = ctx.getBean(Clock.class);
      CycleResult result =
          dryRun ? reaper.dryRun(clock.instant()) : reaper.runOnce(clock.instant(), stopping::get);
      json = result.toJson();
      if (!dryRun && !stopping.get()) {
        // Deliver what this cycle (or an earlier one) left, bounded by the cycle's own time budget.
        int[] delivered =
            ctx.getBean(Delivery.class).drain(clock.instant(), ctx.getBean(ConferenceRoomReaperOptions.class).maxRunDuration());
        json =
            json.substring(0, json.length() - 1)
                + ",\"published\":" + delivered[0] + ",\"recorderStopsDelivered\":" + delivered[1] + "}";
      }
    } catch (RuntimeException | java.sql.SQLException e) {
      json = "{\"error\":" + quote(describe(e)) + "}";
      code = 1;
    } finally {
      done.countDown();
    }
    System.out.println(json);
    return code;
  }

  private static int migrate(List<String> args) {
    checkOptions(args);
    List<String> withFlyway = new ArrayList<>(args);
    withFlyway.add("--spring.flyway.enabled=true");
    String json;
    int code = 0;
    try (ConfigurableApplicationContext ctx = start("migrate", withFlyway, Map.of(), List.of(), true)) {
      // Boot's Flyway support (spring.flyway.* settings, e.g. an owner role) migrated during start-up.
      MigrationInfo current = ctx.getBean(Flyway.class).info().current();
      String version = current == null ? "none" : current.getVersion().getVersion();
      json = "{\"migrated\":true,\"schemaVersion\":" + quote(version) + "}";
    } catch (RuntimeException e) {
      json = "{\"migrated\":false,\"error\":" + quote(describe(e)) + "}";
      code = 1;
    }
    System.out.println(json);
    return code;
  }

  /** Only {@code --name=value} options reach Spring; anything else is a typo worth naming. */
  static void checkOptions(List<String> args) {
    for (String a : args) {
      if (!a.startsWith("--") || !a.contains("=")) {
        throw new UsageException("unexpected argument '" + a + "' (options are --name=value)");
      }
    }
  }

  static void awaitQuietly(CountDownLatch latch, int seconds) {
    try {
      latch.await(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The message of the failure and of each cause under it, so the JSON names the real problem. */
  static String describe(Throwable e) {
    StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
        b.append(": ").append(c.getMessage());
      }
    }
    return b.toString();
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> b.append(c < 0x20 ? ' ' : c);
      }
    }
    return b.append('"').toString();
  }

  /** A command line that cannot be run as given. */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}
