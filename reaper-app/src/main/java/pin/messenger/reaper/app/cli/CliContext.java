package pin.messenger.reaper.app.cli;

import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.telemetry.ConsoleFlush;
import pin.messenger.reaper.telemetry.Failures;

/**
 * What a command runs in: the launcher, stdout (the command's document or answer, nothing else),
 * stderr (errors and usage for a person), and the exit status the command ends with. The process's
 * streams are never swapped: a command that prints a document after its application context has run
 * sends the context's log lines to stderr instead ({@code reaper.log-target}).
 */
public final class CliContext {
  /** The status of a command that keeps running (the worker): the JVM stays up. */
  static final int RUNNING = -1;

  private final PrintStream out;
  private final PrintStream err;
  private final ReaperCli.Extension extension;
  private int status;

  CliContext(PrintStream out, PrintStream err, ReaperCli.Extension extension) {
    this.out = out;
    this.err = err;
    this.extension = extension;
  }

  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }

  ReaperCli.Extension extension() {
    return extension;
  }

  int status() {
    return status;
  }

  void exit(int status) {
    this.status = status;
  }

  /**
   * Prints {@code text} as the last line on stdout (every log line queued before it is written
   * first) and ends with {@code code}.
   */
  void finish(int code, String text) {
    ConsoleFlush.flushAll();
    out.println(text);
    status = code;
  }

  /** What a command prints once its application has shut down, and its exit status. */
  public record Output(int code, String text) {}

  /** The work of a command inside an application context. */
  @FunctionalInterface
  public interface InApplication {
    Output run(ConfigurableApplicationContext ctx, ConferenceRoomReaperOptions o, Clock c)
        throws Exception;
  }

  /**
   * Runs {@code work} in an application context for a command that reads or acts and prints one
   * answer: a configured database is required (none is ever started), migrations never run, the log
   * lines go to stderr, and the answer is printed once the context has shut down. The context is
   * {@link CommandContext}'s alone: the pool, the clock, the options and the store, each made only
   * when the work asks for it; no component scan, no loop, delivery, gauges or meters.
   */
  public void inApplication(String command, List<String> options, InApplication work) {
    List<String> all = new ArrayList<>(options);
    all.add("--spring.flyway.enabled=false");
    all.add("--reaper.log-target=System.err");
    all.add("--spring.main.lazy-initialization=true");
    ApplicationContexts.requireDatabase(all);
    Output output;
    try (ConfigurableApplicationContext ctx = ApplicationContexts.startCommand(command, all)) {
      output =
          work.run(ctx, ctx.getBean(ConferenceRoomReaperOptions.class), ctx.getBean(Clock.class));
    } catch (Exception e) {
      output = new Output(1, CliJson.error(Failures.report(command, e)));
    }
    finish(output.code(), output.text());
  }
}
