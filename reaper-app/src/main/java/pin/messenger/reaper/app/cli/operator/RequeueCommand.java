package pin.messenger.reaper.app.cli.operator;

import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import pin.messenger.reaper.app.cli.CliContext;
import pin.messenger.reaper.app.cli.CliOptions;
import pin.messenger.reaper.app.cli.ReaperCli;
import pin.messenger.reaper.store.OperatorAction;
import pin.messenger.reaper.store.OperatorActions;

/**
 * {@code requeue --kafka-quarantined|--recorder-given-up [--since T] [--yes]}: failed deliveries
 * back to pending, with the same ids.
 */
@Command(
    name = "requeue",
    customSynopsis = "requeue --kafka-quarantined|--recorder-given-up [--since T] [--yes]",
    description = {
      "quarantined outbox rows / given-up recorder stop requests back to",
      "pending with the same ids (ce_id / Idempotency-Key); T is an",
      "instant (2026-12-02T10:00:00Z) or a duration ago (2h)"
    })
public final class RequeueCommand extends OperatorCommand {
  @Option(names = "--kafka-quarantined", description = "the quarantined Kafka outbox rows")
  boolean kafka;

  @Option(names = "--recorder-given-up", description = "the given-up recorder stop requests")
  boolean recorder;

  @Mixin CliOptions.SinceOption since = new CliOptions.SinceOption();

  @Override
  public void run(CliContext cli) {
    if (kafka == recorder) {
      throw new ReaperCli.UsageException(
          "give exactly one of --kafka-quarantined or --recorder-given-up");
    }
    Instant from = since.since;
    act(
        cli,
        kafka ? OperatorAction.REQUEUE_KAFKA_QUARANTINED : OperatorAction.REQUEUE_RECORDER_GIVEN_UP,
        arguments("rows", kafka ? "kafka-quarantined" : "recorder-given-up", "since", from),
        yes,
        (database, options, request) ->
            kafka
                ? new OperatorActions(database).requeueQuarantined(request, from)
                : new OperatorActions(database).requeueGivenUp(request, from));
  }
}
