package pin.messenger.reaper.app.cli;

import java.util.UUID;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import pin.messenger.reaper.store.Explanation;
import pin.messenger.reaper.store.PostgresReaperStore;

/** {@code explain <id> [--json]}: why the reaper does (or does not) close one conference. */
@Command(
    name = "explain",
    customSynopsis = "explain <id> [--json]",
    description = {
      "one conference: status, timestamps, which phase matches or when it",
      "will, whether its row is locked and by whom, its last 5 errors,",
      "its outbox rows"
    })
final class ExplainCommand extends CommandBase {
  @Option(names = "--json", description = "one JSON object instead of the text")
  boolean json;

  @Mixin CliOptions.Conference conference = new CliOptions.Conference();

  @Override
  public void run(CliContext cli) {
    UUID id = conference.required("explain");
    cli.inApplication(
        "explain",
        springOptions(),
        (ctx, options, clock) -> {
          Explanation.Explained explained =
              new Explanation(ctx.getBean(DataSource.class)).explain(id, clock.instant(), options);
          if (explained == null) {
            String none = "no conference " + id;
            return new CliContext.Output(3, json ? CliJson.error(none) : none);
          }
          return new CliContext.Output(
              0,
              json
                  ? CliJson.write(explained)
                  : StatusText.humanExplain(explained)
                      + DebeziumModeText.explainNote(
                          ctx.getBean(PostgresReaperStore.class).outbox()));
        });
  }
}
