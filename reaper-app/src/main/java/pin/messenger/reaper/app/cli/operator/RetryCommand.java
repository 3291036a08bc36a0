package pin.messenger.reaper.app.cli.operator;

import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import pin.messenger.reaper.app.cli.CliContext;
import pin.messenger.reaper.app.cli.CliOptions;
import pin.messenger.reaper.app.cli.ReaperCli;
import pin.messenger.reaper.store.OperatorAction;
import pin.messenger.reaper.store.OperatorActions;
import pin.messenger.reaper.store.OperatorActions.Outcome;

/** {@code retry <id> | retry --poison [--yes]}: ends a poison backoff now. */
@Command(
    name = "retry",
    customSynopsis = "retry <id> | retry --poison [--yes]",
    description = {
      "end the poison backoff of one conference or of all: the next cycle",
      "tries them again (their error history stays)"
    })
public final class RetryCommand extends OperatorCommand {
  @Option(names = "--poison", description = "every row in poison backoff")
  boolean poison;

  @Mixin CliOptions.Conference conference = new CliOptions.Conference();

  @Override
  public void run(CliContext cli) {
    UUID id = conference.id;
    if (poison == (id != null)) {
      throw new ReaperCli.UsageException(
          "give either a conference id or --poison (every row in poison backoff)");
    }
    act(
        cli,
        OperatorAction.RETRY,
        id == null ? arguments("poison", true) : arguments("conferenceId", id.toString()),
        yes,
        (database, options, request) -> {
          OperatorActions actions = new OperatorActions(database);
          Outcome o = actions.retry(request, id);
          if (o.result() == OperatorActions.Result.NOTHING && id != null) {
            return new Outcome(
                o.result(), o.rows(), null, actions.whyNotRetryable(id, request.at()));
          }
          return o;
        });
  }
}
