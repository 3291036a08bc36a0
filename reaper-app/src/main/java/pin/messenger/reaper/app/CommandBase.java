package pin.messenger.reaper.app;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * What every command takes besides its own options: {@code -h/--help}, and the Spring-style {@code
 * --x.y=z} options that pass through to the application (anything else left over is a typo worth
 * naming).
 */
abstract class CommandBase implements CliCommand {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this command's usage")
  boolean help;

  @Unmatched List<String> rest = new ArrayList<>();

  /** The Spring-style options of the command line, once nothing else is left over. */
  List<String> springOptions() {
    ReaperCli.checkOptions(rest);
    return rest;
  }
}
