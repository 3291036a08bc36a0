package pin.messenger.reaper.app.cli;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import pin.messenger.reaper.app.cli.operator.AuditCommand;
import pin.messenger.reaper.app.cli.operator.EndCommand;
import pin.messenger.reaper.app.cli.operator.PauseCommand;
import pin.messenger.reaper.app.cli.operator.RequeueCommand;
import pin.messenger.reaper.app.cli.operator.ResumeCommand;
import pin.messenger.reaper.app.cli.operator.RetryCommand;

/**
 * The worker's commands, in the usage text's order. A new command is added here (and is then in the
 * usage text, {@code help <command>} and the completion script).
 */
final class CliCommands {
  private CliCommands() {}

  /** The worker's own: run it, once, migrate it, look at it. */
  static List<CliCommand> worker() {
    return List.of(
        new RunCommand(),
        new RunOnceCommand(),
        new MigrateCommand(),
        new StatusCommand(),
        new ExplainCommand());
  }

  /** The operator's actions and their trail. */
  static List<CliCommand> operator() {
    return List.of(
        new PauseCommand(),
        new ResumeCommand(),
        new RetryCommand(),
        new RequeueCommand(),
        new EndCommand(),
        new AuditCommand());
  }

  /** Every command: the worker's, the operator's, and the completion script. */
  static List<CliCommand> all() {
    List<CliCommand> all = new ArrayList<>(worker());
    all.addAll(operator());
    all.add(new CompletionCommand());
    return all;
  }

  /**
   * The command called {@code name}, or null. Only that command's class is loaded, and then parsed:
   * picocli reads one class's annotations per run, not every command's ({@code CliCommandsTest}
   * checks these names against the annotations).
   */
  static @Nullable CliCommand named(String name) {
    return switch (name) {
      case "run" -> new RunCommand();
      case "run-once" -> new RunOnceCommand();
      case "migrate" -> new MigrateCommand();
      case "status" -> new StatusCommand();
      case "explain" -> new ExplainCommand();
      case "pause" -> new PauseCommand();
      case "resume" -> new ResumeCommand();
      case "retry" -> new RetryCommand();
      case "requeue" -> new RequeueCommand();
      case "end" -> new EndCommand();
      case "audit" -> new AuditCommand();
      case "completion" -> new CompletionCommand();
      default -> null;
    };
  }

  static String name(CliCommand command) {
    return command.getClass().getAnnotation(Command.class).name();
  }
}
