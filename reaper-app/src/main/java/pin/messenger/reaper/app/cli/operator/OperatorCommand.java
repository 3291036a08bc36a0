package pin.messenger.reaper.app.cli.operator;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;
import pin.messenger.reaper.app.cli.CliContext;
import pin.messenger.reaper.app.cli.CommandBase;
import pin.messenger.reaper.app.cli.ReaperCli;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.store.OperatorAction;
import pin.messenger.reaper.store.OperatorActions;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Request;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * What the operator's actions share ({@code pause}, {@code resume}, {@code retry}, {@code requeue},
 * {@code end}): their common options, and one way to run one. Each action prints what it changes
 * (or would change); one that matches more than one row changes nothing without {@code --yes} (exit
 * {@value ActionReport#EXIT_PLAN}); one that matches nothing changes nothing (exit {@value
 * ActionReport#EXIT_NOTHING}); bad input is a usage error (exit 2) found before anything starts. A
 * change and its audit row commit together ({@link OperatorActions}), and are logged as {@code
 * operator action} (logs go to stderr; stdout is the result).
 */
public abstract class OperatorCommand extends CommandBase {
  @Option(names = "--json", description = "print one JSON document")
  boolean json;

  @Option(names = "--yes", description = "change more than one row (without it: the plan only)")
  boolean yes;

  @Option(names = "--reason", paramLabel = "\"...\"", description = "why, for the audit trail")
  @Nullable String reason;

  @Option(
      names = "--actor",
      paramLabel = "A",
      description = "who acts, for the audit trail (default: the OS user)")
  @Nullable String actor;

  /** One action's work, given its request (who, when, why, with what arguments). */
  @FunctionalInterface
  interface Act {
    Outcome act(DataSource database, ConferenceRoomReaperOptions options, Request request)
        throws Exception;
  }

  /** The store of the running action's context (its outbox mode); set before the action runs. */
  private @Nullable PostgresReaperStore store;

  /** The store of the running action's context. */
  PostgresReaperStore store() {
    return java.util.Objects.requireNonNull(store, "store() is only for a running action");
  }

  /** Refuses the command line without {@code --reason} when this action requires one. */
  void requireReason() {
    String given = reason;
    if (given == null || given.isBlank()) {
      throw new ReaperCli.UsageException(
          "--reason \"…\" is required: say why, for the audit and the next engineer");
    }
  }

  /**
   * Runs {@code action} at the clock's moment with {@code arguments} (what the audit row records)
   * and prints its outcome.
   */
  void act(
      CliContext cli,
      OperatorAction action,
      Map<String, @Nullable Object> arguments,
      boolean confirmed,
      Act act) {
    String who = actor();
    cli.inApplication(
        action.label(),
        springOptions(),
        (ctx, options, clock) -> {
          Request request = new Request(action, who, clock.instant(), reason, arguments, confirmed);
          store = ctx.getBean(PostgresReaperStore.class);
          Outcome outcome = act.act(ctx.getBean(DataSource.class), options, request);
          return ActionReport.of(action, outcome, json);
        });
  }

  /**
   * The audit row's arguments, from name-value pairs: a null value is left out, an instant as text.
   */
  static Map<String, @Nullable Object> arguments(@Nullable Object... pairs) {
    Map<String, @Nullable Object> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] != null) {
        m.put((String) pairs[i], pairs[i + 1] instanceof Instant t ? t.toString() : pairs[i + 1]);
      }
    }
    return m;
  }

  /** {@code --actor}, else the OS user running the command. */
  private String actor() {
    String given = actor;
    if (given != null && !given.isBlank()) {
      return given;
    }
    for (String candidate :
        new String[] {
          System.getProperty("user.name"), System.getenv("USER"), System.getenv("LOGNAME")
        }) {
      if (candidate != null && !candidate.isBlank() && !candidate.equals("?")) {
        return candidate;
      }
    }
    return "unknown";
  }
}
