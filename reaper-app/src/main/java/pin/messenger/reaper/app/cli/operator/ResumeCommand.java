package pin.messenger.reaper.app.cli.operator;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import pin.messenger.reaper.app.cli.CliContext;
import pin.messenger.reaper.app.cli.CliOptions;
import pin.messenger.reaper.store.OperatorAction;
import pin.messenger.reaper.store.OperatorActions;

/** {@code resume [--phase P] [--yes]}: lifts a pause in force, or every pause. */
@Command(
    name = "resume",
    customSynopsis = "resume [--phase P] [--yes]",
    description = {
      "lift a phase's pause in force, or without --phase every pause; a",
      "phase held only by a whole-reaper pause is lifted with the whole"
    })
public final class ResumeCommand extends OperatorCommand {
  @Mixin CliOptions.PhaseOption phase = new CliOptions.PhaseOption();

  @Override
  public void run(CliContext cli) {
    String scope = phase.phase;
    act(
        cli,
        OperatorAction.RESUME,
        arguments("scope", scope == null ? "every pause" : scope),
        yes,
        (database, options, request) -> new OperatorActions(database).resume(request, scope));
  }
}
