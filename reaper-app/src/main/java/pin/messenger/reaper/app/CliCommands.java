package pin.messenger.reaper.app;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;

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
   * The command called {@code name}, or null. Only the command asked for is then parsed: picocli
   * reads one class's annotations, not every command's.
   */
  static @Nullable CliCommand named(String name) {
    for (CliCommand c : all()) {
      if (name(c).equals(name)) {
        return c;
      }
    }
    return null;
  }

  static String name(CliCommand command) {
    return command.getClass().getAnnotation(Command.class).name();
  }
}
