package pin.messenger.reaper.app.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine.Command;
import pin.messenger.reaper.telemetry.Failures;

/** {@code migrate}: applies the schema migrations, prints the version reached as JSON. */
@Command(
    name = "migrate",
    customSynopsis = "migrate",
    description = "apply the schema migrations and exit")
final class MigrateCommand extends CommandBase implements CliCommand.PrintsDocument {
  /** What {@code migrate} prints: the schema version reached, or why it failed. */
  record Document(
      boolean migrated,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String schemaVersion,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String error) {}

  @Override
  public void run(CliContext cli) {
    List<String> options = springOptions();
    List<ApplicationContextInitializer<?>> database =
        ApplicationContexts.database(options, cli.extension());
    List<String> withFlyway = new ArrayList<>(options);
    withFlyway.add("--spring.flyway.enabled=true");
    Document document;
    try (ConfigurableApplicationContext ctx =
        ApplicationContexts.startOneShot("migrate", withFlyway, database, true)) {
      // Boot's Flyway support (spring.flyway.* settings, e.g. an owner role) migrated during
      // start-up.
      MigrationInfo current = ctx.getBean(Flyway.class).info().current();
      String version = current == null ? "none" : current.getVersion().getVersion();
      document = new Document(true, version, null);
    } catch (RuntimeException e) {
      document = new Document(false, null, Failures.report("migrate", e));
    }
    cli.finish(document.migrated() ? 0 : 1, CliJson.write(document));
  }
}
