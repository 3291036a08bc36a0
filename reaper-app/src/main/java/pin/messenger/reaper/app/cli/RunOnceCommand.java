package pin.messenger.reaper.app.cli;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.delivery.Delivery;
import pin.messenger.reaper.telemetry.Failures;

/**
 * {@code run-once [--dry-run]}: one cycle, then one delivery pass bounded by the cycle's time
 * budget; the last stdout line is the {@link RunOnceDocument}.
 */
@Command(
    name = "run-once",
    customSynopsis = "run-once [--dry-run]",
    description = {
      "one cycle; the last stdout line is one JSON object with its counters",
      "(--dry-run: claim and decide, then roll back: changes nothing)"
    })
final class RunOnceCommand extends CommandBase implements CliCommand.PrintsDocument {
  @Option(names = "--dry-run", description = "claim and decide, then roll back")
  boolean dryRun;

  @Override
  public void run(CliContext cli) {
    List<String> options = springOptions();
    List<ApplicationContextInitializer<?>> database =
        ApplicationContexts.database(options, cli.extension());
    AtomicBoolean stopping = new AtomicBoolean();
    AtomicReference<@Nullable Delivery> delivering = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    // SIGTERM during the cycle: its open batch rolls back whole (or has committed), the lock is
    // released. During the delivery pass: the pass stops at once, what it did not deliver stays
    // pending for the next run.
    Thread hook =
        new Thread(
            () -> {
              stopping.set(true);
              Delivery d = delivering.get();
              if (d != null) {
                d.stop();
              }
              ReaperCli.awaitQuietly(done, 60);
            },
            "run-once-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    String json;
    int code = 0;
    try (ConfigurableApplicationContext ctx =
        ApplicationContexts.startOneShot("run-once", options, database, false)) {
      ConferenceRoomReaper reaper = ctx.getBean(ConferenceRoomReaper.class);
      Clock clock = ctx.getBean(Clock.class);
      CycleResult result =
          // The cycle takes its moment from reaper.clock, like the periodic loop.
          dryRun ? reaper.dryRun() : reaper.runOnce(stopping::get);
      RunOnceDocument document = RunOnceDocument.of(result);
      Delivery delivery = ctx.getBean(Delivery.class);
      // Published before the check below: a SIGTERM from now on reaches the pass (the hook sets
      // stopping, then reads this), or the pass is never begun.
      delivering.set(delivery);
      if (!dryRun && !stopping.get()) {
        // Deliver what this cycle (or an earlier one) left, bounded by the cycle's own time budget.
        Delivery.Drained drained =
            delivery.drain(
                clock.instant(), ctx.getBean(ConferenceRoomReaperOptions.class).maxRunDuration());
        document = document.delivered(drained.published(), drained.recorderStopsDelivered());
      }
      json = CliJson.write(document);
    } catch (RuntimeException | java.sql.SQLException e) {
      json = CliJson.error(Failures.report("run-once", e));
      code = 1;
    } catch (Error e) {
      done.countDown();
      throw e;
    }
    cli.finish(code, json);
    // Only now may a SIGTERM's hook return and the JVM end: the document is out.
    done.countDown();
  }
}
