package pin.messenger.reaper.app.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.app.ReaperApplication;
import pin.messenger.reaper.app.config.DatabaseSettings;
import pin.messenger.reaper.app.config.DatasourceUrlSanitizer;

/**
 * How a command starts its application context: which database it gets (a configured one, the
 * launcher's development database, or none: fail closed), which configuration sources (the worker's
 * component scan, {@link OneShotContext}, {@link CommandContext}), and whether it serves HTTP (only
 * {@code run}).
 */
public final class ApplicationContexts {
  static final String NO_DATABASE =
      "no database configured: set SPRING_DATASOURCE_URL (with SPRING_DATASOURCE_USERNAME and"
          + " SPRING_DATASOURCE_PASSWORD) or --spring.datasource.url=...; nothing was started";

  private ApplicationContexts() {}

  /**
   * The initializers that give a command its database: none when one is configured; the launcher's
   * development database when it has one and no URL is given at all; otherwise the command fails
   * closed before anything starts. An empty (or blank) URL, e.g. an exported SPRING_DATASOURCE_URL
   * whose secret is missing, names no database: it fails closed like none, and never gets the
   * development database, since whoever set it meant a real one.
   */
  static List<ApplicationContextInitializer<?>> database(
      List<String> args, ReaperCli.Extension extension) {
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

  /** A command that needs something the configuration does not give (the database). */
  static final class NotConfiguredException extends RuntimeException {
    NotConfiguredException(String message) {
      super(message);
    }
  }
}
