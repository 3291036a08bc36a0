package pin.messenger.reaper.app.cli;

import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.store.StatusReport;

/** {@code status [--json]}: read-only, for the on-call engineer. */
@Command(
    name = "status",
    customSynopsis = "status [--json]",
    description = {
      "per phase the due count and oldest due age, who holds the run lock,",
      "the runners (live, and silent ones with how long), poison rows,",
      "pending Kafka/recorder/realtime deliveries (read-only)"
    })
final class StatusCommand extends CommandBase {
  @Option(names = "--json", description = "one JSON object instead of the table")
  boolean json;

  @Override
  public void run(CliContext cli) {
    cli.inApplication(
        "status",
        springOptions(),
        (ctx, options, clock) -> {
          StatusReport.Status status =
              new StatusReport(
                      ctx.getBean(DataSource.class), ctx.getBean(PostgresReaperStore.class))
                  .read(clock.instant(), options);
          return new CliContext.Output(
              0, json ? CliJson.write(status) : StatusText.humanStatus(status));
        });
  }
}
