package pin.messenger.reaper.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import pin.messenger.reaper.schema.SchemaMigrations;

/**
 * A real PostgreSQL for tests: the server named by {@code REAPER_TEST_PG_URL} (a JDBC URL to an
 * admin database, with {@code REAPER_TEST_PG_USER} / {@code REAPER_TEST_PG_PASSWORD}), or else one
 * embedded PostgreSQL 17 per test JVM (started from a copy of an initialised data directory: {@link
 * EmbeddedTemplate}). Each call of {@link #create} gives a new, migrated database, so test classes
 * never share rows.
 */
public final class TestDatabase implements AutoCloseable {
  private static EmbeddedPostgres embedded;

  private final String url;
  private final String user;
  private final String password;
  private final String name;
  private final HikariDataSource dataSource;

  private TestDatabase(
      String adminUrl, String user, String password, String name, boolean migrate) {
    this.user = user;
    this.password = password;
    this.name = name;
    // The database's URL without credentials in it: user and password are passed separately (a
    // user= in the URL
    // would silently win over the user a test asks for).
    this.url = adminUrl.replaceFirst("/[^/?]*(\\?.*)?$", "/" + name);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(12);
    config.setPoolName("test-" + name);
    config.addDataSourceProperty("ApplicationName", "reaper-test");
    this.dataSource = new HikariDataSource(config);
    if (migrate) {
      SchemaMigrations.migrate(dataSource);
    }
  }

  /** A fresh database with the reaper's migrations applied. */
  public static TestDatabase create() {
    return create(true);
  }

  /** A fresh database, migrated or empty. */
  public static synchronized TestDatabase create(boolean migrate) {
    String adminUrl = System.getenv("REAPER_TEST_PG_URL");
    String user = System.getenv().getOrDefault("REAPER_TEST_PG_USER", "postgres");
    String password = System.getenv().getOrDefault("REAPER_TEST_PG_PASSWORD", "");
    if (adminUrl == null || adminUrl.isBlank()) {
      adminUrl = embedded().getJdbcUrl("postgres", "postgres");
      user = "postgres";
      password = "";
    }
    String name =
        "reaper_"
            + UUID.randomUUID()
                .toString()
                .replace("-", "")
                .substring(0, 12)
                .toLowerCase(Locale.ROOT);
    try (Connection c = DriverManager.getConnection(adminUrl, user, password);
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create test database: " + e.getMessage(), e);
    }
    return new TestDatabase(adminUrl, user, password, name, migrate);
  }

  private static EmbeddedPostgres embedded() {
    if (embedded == null) {
      try {
        embedded = EmbeddedTemplate.start(); // stopped (and its copy deleted) when the JVM exits
      } catch (IOException e) {
        throw new UncheckedIOException("could not start embedded PostgreSQL", e);
      }
    }
    return embedded;
  }

  // Plain accessors (same shape as any record-like class), nothing shared to extract.
  public HikariDataSource dataSource() {
    return dataSource;
  }

  public String url() {
    return url;
  }

  public String user() {
    return user;
  }

  public String password() {
    return password;
  }

  public String name() {
    return name;
  }

  /** A connection outside the pool (for a second session that holds locks). */
  public Connection newConnection() throws SQLException {
    return DriverManager.getConnection(url, user, password);
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
