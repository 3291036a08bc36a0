package pin.messenger.reaper.dev;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The development database: an embedded PostgreSQL started when no datasource is configured, so
 * that a newcomer's {@code bin/reaper run} works with nothing but a JDK. Only the development
 * launcher installs it; the production jar does not contain it and fails closed instead. Its first
 * log line says that this is the development path.
 */
final class EmbeddedPostgresInitializer
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresInitializer.class);

  private final boolean cleanDataDirectory;

  EmbeddedPostgresInitializer(boolean cleanDataDirectory) {
    this.cleanDataDirectory = cleanDataDirectory;
  }

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    ConfigurableEnvironment env = context.getEnvironment();
    if (env.containsProperty("spring.datasource.url")
        || env.containsProperty("embedded.postgres.started")) {
      return;
    }
    initializeForced(context);
  }

  /**
   * Starts the embedded PostgreSQL whatever the environment says (the demo never touches a real
   * database).
   */
  void initializeForced(ConfigurableApplicationContext context) {
    ConfigurableEnvironment env = context.getEnvironment();
    Path dataDir =
        Path.of(env.getProperty("reaper.embedded.data-dir", ".reaper/pgdata")).toAbsolutePath();
    // initdb's and the server's own output: a file beside the data, not the console.
    Path serverLog = dataDir.resolveSibling(dataDir.getFileName() + ".log");
    log.atWarn()
        .addKeyValue("dataDir", dataDir)
        .log(
            "development mode: no SPRING_DATASOURCE_URL set, so the development launcher starts an"
                + " embedded PostgreSQL; the production jar refuses to start without a database");
    EmbeddedPostgres postgres;
    try {
      Files.createDirectories(dataDir.getParent());
      ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(serverLog.toFile());
      // Under run, Spring's shutdown hook closes the context, which stops the server after the
      // pool and the runner's last heartbeat (below); the library's own hook would race it and stop
      // the server first ("runner heartbeat not written" on every Ctrl-C). The other commands close
      // their context themselves and keep the library's hook as a backstop.
      boolean springStopsIt = "run".equals(env.getProperty("reaper.command"));
      postgres =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(cleanDataDirectory)
              .setRegisterShutdownHook(!springStopsIt)
              .setOutputRedirector(toLog)
              .setErrorRedirector(toLog)
              .start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "could not start the embedded PostgreSQL in "
              + dataDir
              + " (its output: "
              + serverLog
              + ")",
          e);
    }
    String url = postgres.getJdbcUrl("postgres", "postgres");
    log.atInfo()
        .addKeyValue("port", postgres.getPort())
        .addKeyValue("serverLog", serverLog)
        .log("embedded PostgreSQL started");
    env.getPropertySources()
        .addFirst(
            new MapPropertySource(
                "embeddedPostgres",
                Map.of(
                    "spring.datasource.url", url,
                    "spring.datasource.username", "postgres",
                    "spring.datasource.password", "",
                    "embedded.postgres.started", "true")));
    // Stop the server only after the pool that uses it: a disposable bean the DataSource depends
    // on.
    DefaultListableBeanFactory beans = (DefaultListableBeanFactory) context.getBeanFactory();
    beans.registerSingleton("embeddedPostgres", postgres);
    beans.registerDisposableBean(
        "embeddedPostgres",
        () -> {
          try {
            postgres.close();
          } catch (IOException e) {
            log.atWarn().setCause(e).log("embedded PostgreSQL did not stop cleanly");
          }
        });
    beans.registerDependentBean("embeddedPostgres", "dataSource");
  }
}
