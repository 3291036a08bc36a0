package pin.messenger.reaper.app.cli.operator;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import pin.messenger.reaper.app.cli.CliContext;
import pin.messenger.reaper.app.cli.CliOptions;
import pin.messenger.reaper.app.cli.ReaperCli;
import pin.messenger.reaper.core.ManualEnd;
import pin.messenger.reaper.store.OperatorAction;
import pin.messenger.reaper.store.OperatorEnd;

/**
 * {@code end <conferenceId> --reason "…" [--started-at T | --without-event]}: close a conference
 * now exactly as the reaper's phase would ({@link ManualEnd}, {@link OperatorEnd}), with its audit
 * row in the same transaction. Exit 0 closed; 3 refused (unknown, terminal, not due in any phase,
 * or rejected as the reaper rejects it; the message says why); 4 a choice only the operator can
 * make (the message names the options); nothing is written unless it closes.
 */
@Command(
    name = "end",
    customSynopsis = "end <id> --reason \"...\" [--started-at T | --without-event]",
    description = {
      "close a conference now exactly as the reaper's phase would (status,",
      "end reason, outbox, realtime and recorder-stop rows); refused when",
      "the reaper would not close it now; a meeting without a usable",
      "started_at needs a choice: --started-at T (an instant) or",
      "--without-event (no conference-ended event, no duration)"
    })
public final class EndCommand extends OperatorCommand {
  @Mixin CliOptions.Conference conference = new CliOptions.Conference();

  @Option(
      names = "--started-at",
      paramLabel = "T",
      description = "when the meeting started, for the event's duration (an instant)",
      converter = CliOptions.StartedAt.class)
  @Nullable Instant startedAt;

  @Option(names = "--without-event", description = "no conference-ended event, no duration")
  boolean withoutEvent;

  @Override
  public void run(CliContext cli) {
    UUID id = conference.required("end");
    requireReason();
    if (withoutEvent && startedAt != null) {
      throw new ReaperCli.UsageException("give at most one of --started-at or --without-event");
    }
    ManualEnd.Choice choice = new ManualEnd.Choice(startedAt, withoutEvent);
    String correlationId = "operator-end-" + UUID.randomUUID();
    act(
        cli,
        OperatorAction.END,
        arguments(
            "conferenceId",
            id.toString(),
            "startedAt",
            startedAt,
            "withoutEvent",
            withoutEvent ? Boolean.TRUE : null,
            "correlationId",
            correlationId),
        // One row at most: --yes is accepted, never needed.
        true,
        (database, options, request) ->
            new OperatorEnd(database, store()).end(request, id, choice, options));
  }
}
