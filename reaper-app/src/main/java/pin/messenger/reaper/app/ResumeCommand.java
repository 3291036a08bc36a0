package pin.messenger.reaper.app;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
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
final class ResumeCommand extends OperatorCommand {
  @Option(
      names = "--phase",
      paramLabel = "P",
      description = "the phase to resume (default: every pause)",
      converter = CliOptions.PhaseLabel.class)
  @Nullable String phase;

  @Override
  public void run(CliContext cli) {
    String scope = phase;
    act(
        cli,
        OperatorAction.RESUME,
        arguments("scope", scope == null ? "every pause" : scope),
        yes,
        (database, options, request) -> new OperatorActions(database).resume(request, scope));
  }
}
