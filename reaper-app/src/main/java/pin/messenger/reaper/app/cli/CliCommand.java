package pin.messenger.reaper.app.cli;

/**
 * One command of the worker's command line. Its options are picocli fields (parsed, converted and
 * checked before it runs, so bad input never starts anything); {@link #run} does the work, prints
 * through {@code cli} and sets the exit status there.
 *
 * <p>A new command is a class implementing this, annotated with {@code @Command(name = ...,
 * customSynopsis = ..., description = ...)} (the synopsis and description are its lines in the
 * usage text and in its own {@code --help}), added to {@link CliCommands}.
 */
interface CliCommand {
  void run(CliContext cli);

  /**
   * A command whose stdout is a JSON document whatever the command line says ({@code run-once},
   * {@code migrate}): a bad command line is then answered with an error document too.
   */
  interface PrintsDocument extends CliCommand {}
}
