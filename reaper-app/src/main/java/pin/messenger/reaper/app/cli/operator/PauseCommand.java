package pin.messenger.reaper.app.cli.operator;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import pin.messenger.reaper.app.cli.CliContext;
import pin.messenger.reaper.app.cli.CliOptions;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.store.OperatorAction;
import pin.messenger.reaper.store.OperatorActions;

/**
 * {@code pause [--phase P] --reason "…" [--for 30m]}: every runner skips it from its next batch.
 */
@Command(
    name = "pause",
    customSynopsis = "pause [--phase P] --reason \"...\" [--for 30m]",
    description = {
      "pause one phase (empty-room, provision-timeout, stale-live) or,",
      "without --phase, the whole reaper; --for: it ends by itself",
      "(a duration is 30s, 15m, 2h, 1d or ISO-8601 PT30M; no bare number)"
    })
public final class PauseCommand extends OperatorCommand {
  @Mixin CliOptions.PhaseOption phase = new CliOptions.PhaseOption();

  @Option(
      names = "--for",
      paramLabel = "30m",
      description = "the pause ends by itself after this long",
      converter = CliOptions.PauseFor.class)
  CliOptions.@Nullable TypedDuration pauseFor;

  @Override
  public void run(CliContext cli) {
    String one = phase.phase;
    String scope = one == null ? PauseState.ALL : one;
    requireReason();
    CliOptions.TypedDuration span = pauseFor;
    act(
        cli,
        OperatorAction.PAUSE,
        arguments("scope", scope, "for", span == null ? null : span.text()),
        // One row at most: --yes is accepted, never needed.
        true,
        (database, options, request) -> {
          Instant until = span == null ? null : request.at().plus(span.duration());
          return new OperatorActions(database).pause(request, scope, until);
        });
  }
}
