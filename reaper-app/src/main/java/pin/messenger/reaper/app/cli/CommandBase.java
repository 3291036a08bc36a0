package pin.messenger.reaper.app.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * What every command takes besides its own options: {@code -h/--help}, and the Spring-style {@code
 * --x.y=z} options that pass through to the application (anything else left over is a typo worth
 * naming).
 */
public abstract class CommandBase implements CliCommand {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this command's usage")
  boolean help;

  @Unmatched List<String> rest = new ArrayList<>();

  /**
   * True when every argument is a Spring-style option with a dotted name ({@code
   * --reaper.batch-size=5}, {@code --spring.datasource.url=...}): no command's own option has a dot
   * in its name ({@code CliCommandsTest}), so picocli would leave every field at its default and
   * pass them all through, and parsing can be skipped.
   */
  static boolean onlySpringOptions(List<String> args) {
    for (String a : args) {
      int equals = a.indexOf('=');
      if (!a.startsWith("--") || equals < 0 || a.substring(0, equals).indexOf('.') < 0) {
        return false;
      }
    }
    return true;
  }

  /** The Spring-style options of the command line, once nothing else is left over. */
  protected List<String> springOptions() {
    ReaperCli.checkOptions(rest);
    return rest;
  }
}
