package pin.messenger.reaper.app;

import java.util.UUID;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
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
final class RetryCommand extends OperatorCommand {
  @Option(names = "--poison", description = "every row in poison backoff")
  boolean poison;

  @Parameters(
      arity = "0..1",
      paramLabel = "<id>",
      description = "the conference id (a UUID)",
      converter = CliOptions.ConferenceId.class)
  @Nullable UUID id;

  @Override
  public void run(CliContext cli) {
    UUID conference = id;
    if (poison == (conference != null)) {
      throw new ReaperCli.UsageException(
          "give either a conference id or --poison (every row in poison backoff)");
    }
    act(
        cli,
        OperatorAction.RETRY,
        conference == null
            ? arguments("poison", true)
            : arguments("conferenceId", conference.toString()),
        yes,
        (database, options, request) -> {
          OperatorActions actions = new OperatorActions(database);
          Outcome o = actions.retry(request, conference);
          if (o.result() == OperatorActions.Result.NOTHING && conference != null) {
            return new Outcome(
                o.result(), o.rows(), null, actions.whyNotRetryable(conference, request.at()));
          }
          return o;
        });
  }
}
