package pin.messenger.reaper.app;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ManualEnd;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Request;
import pin.messenger.reaper.store.OperatorEnd;

/**
 * {@code end <conferenceId> --reason "…" [--started-at T | --without-event]}: close a conference
 * now exactly as the reaper's phase would ({@link ManualEnd}, {@link OperatorEnd}), with its audit
 * row in the same transaction. Exit 0 closed; 3 refused (unknown, terminal, not due in any phase,
 * or rejected as the reaper rejects it; the message says why); 4 a choice only the operator can
 * make (the message names the options); nothing is written unless it closes.
 */
final class EndCommand {
  private EndCommand() {}

  static int end(List<String> args) {
    CommandLine line = new CommandLine(args);
    boolean json = line.flag("json");
    line.flag("yes"); // one row at most: accepted, never needed
    boolean withoutEvent = line.flag("without-event");
    String startedText = line.value("started-at");
    String reason = line.value("reason");
    String actor = OperatorCommand.actor(line);
    String idText = line.positional();
    if (idText == null) {
      throw line.usage("end needs a conference id");
    }
    UUID id = OperatorCommand.conferenceId(line, idText);
    if (reason == null || reason.isBlank()) {
      throw line.usage("--reason \"…\" is required: say why, for the audit and the next engineer");
    }
    if (withoutEvent && startedText != null) {
      throw line.usage("give at most one of --started-at or --without-event");
    }
    Instant startedAt = startedText == null ? null : instant(line, startedText);
    line.done();
    ManualEnd.Choice choice = new ManualEnd.Choice(startedAt, withoutEvent);
    String correlationId = "operator-end-" + UUID.randomUUID();
    Map<String, @Nullable Object> arguments =
        OperatorCommand.arguments(
            "conferenceId",
            id.toString(),
            "startedAt",
            startedAt,
            "withoutEvent",
            withoutEvent ? Boolean.TRUE : null,
            "correlationId",
            correlationId);
    return StatusCommand.withContext(
        "end",
        OperatorCommand.lazily(line.rest()),
        (ctx, options, clock) -> {
          Request request = new Request("end", actor, clock.instant(), reason, arguments, true);
          Outcome outcome =
              new OperatorEnd(ctx.getBean(DataSource.class)).end(request, id, choice, options);
          OperatorCommand.logOutcome("end", outcome);
          int code =
              switch (outcome.result()) {
                case APPLIED -> 0;
                case PLAN_ONLY -> OperatorCommand.EXIT_PLAN;
                case NOTHING -> OperatorCommand.EXIT_NOTHING;
              };
          return new StatusCommand.Output(
              code,
              json ? CliJson.write(OperatorCommand.document("end", outcome)) : human(outcome));
        });
  }

  private static Instant instant(CommandLine line, String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw line.usage("--started-at '" + text + "' is not an instant (2026-12-02T10:00:00Z)");
    }
  }

  static String human(Outcome o) {
    return switch (o.result()) {
      case NOTHING -> "end: refused: " + o.message() + "; nothing changed";
      case PLAN_ONLY -> "end: a choice is needed: " + o.message() + "; nothing changed";
      case APPLIED -> OperatorCommand.human("end", o);
    };
  }
}
