package pin.messenger.reaper.app.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code run}: the long-running worker; the JVM stays up until SIGTERM. */
@Command(
    name = "run",
    customSynopsis = "run",
    description = "the worker: a cycle every reaper.polling-interval until SIGTERM / Ctrl-C")
final class RunCommand extends CommandBase {
  @Override
  public void run(CliContext cli) {
    List<String> options = springOptions();
    ApplicationContexts.start(
        "run", options, Map.of(), ApplicationContexts.database(options, cli.extension()), true);
    cli.exit(CliContext.RUNNING);
  }
}
