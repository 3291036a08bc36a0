package pin.messenger.reaper.schema;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * The reaper's Flyway settings, shared by the application (through Spring Boot's Flyway support)
 * and the tests (directly), so that both build the schema from the same migrations the same way.
 */
public final class SchemaMigrations {
  /** Own history table: the messenger's schema may have its own Flyway history beside ours. */
  public static final String HISTORY_TABLE = "conference_room_reaper_schema_history";

  public static final String SCHEMA = "messenger";
  public static final String LOCATION = "classpath:db/migration";

  private SchemaMigrations() {}

  /** Applies the reaper's settings to a Flyway configuration. */
  public static FluentConfiguration configure(FluentConfiguration configuration) {
    return configuration
        .schemas(SCHEMA)
        .defaultSchema(SCHEMA)
        .createSchemas(true)
        .table(HISTORY_TABLE)
        .locations(LOCATION);
  }

  /** Migrates the database behind {@code dataSource} to the latest version. */
  public static int migrate(DataSource dataSource) {
    return configure(Flyway.configure()).dataSource(dataSource).load().migrate().migrationsExecuted;
  }
}
