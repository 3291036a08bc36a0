package pin.messenger.reaper.app.config;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Whether a database is configured, decided before anything starts: the same property sources
 * Spring Boot will read (command line, system properties, the environment such as {@code
 * SPRING_DATASOURCE_URL}, config files and {@code spring.config.*} locations), without creating an
 * application context, a pool or a log line.
 */
public final class DatabaseSettings {
  static final String URL = "spring.datasource.url";

  private DatabaseSettings() {}

  /** A URL that names a database: given, and neither empty nor blank. */
  public static boolean configured(List<String> args) {
    String url = url(args);
    return url != null && !url.isBlank();
  }

  /**
   * The URL as given (possibly empty, e.g. an exported but empty SPRING_DATASOURCE_URL), or null.
   */
  public static @Nullable String url(List<String> args) {
    StandardEnvironment env = new StandardEnvironment();
    env.getPropertySources()
        .addFirst(new SimpleCommandLinePropertySource(args.toArray(String[]::new)));
    ConfigDataEnvironmentPostProcessor.applyTo(env);
    return env.getProperty(URL);
  }
}
