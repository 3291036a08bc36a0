package pin.messenger.reaper.app;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.store.OperatorActions;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Request;

/**
 * The operator's actions: {@code pause}, {@code resume}, {@code retry}, {@code requeue} ({@code
 * end} is {@link EndCommand}, the trail they leave {@link AuditCommand}). Each action prints what
 * it changes (or would change); one that matches more than one row changes nothing without {@code
 * --yes} (exit {@value #EXIT_PLAN}); one that matches nothing changes nothing (exit {@value
 * #EXIT_NOTHING}); bad input is a usage error (exit 2) found before anything starts. A change and
 * its audit row commit together ({@link OperatorActions}), and are logged as {@code operator
 * action} (logs go to stderr; stdout is the result).
 */
final class OperatorCommand {
  private static final Logger log = LoggerFactory.getLogger(OperatorCommand.class);

  /** Nothing matched (unknown id, nothing quarantined, nothing paused): nothing changed. */
  static final int EXIT_NOTHING = 3;

  /** More than one row matched and {@code --yes} was not given: the plan only, nothing changed. */
  static final int EXIT_PLAN = 4;

  private OperatorCommand() {}

  /** {@code pause [--phase P] --reason "…" [--for 30m] [--actor A]}. */
  static int pause(List<String> args) {
    CommandLine line = new CommandLine(args);
    boolean json = line.flag("json");
    line.flag("yes"); // one row at most: accepted, never needed
    String scope = scope(line);
    String reason = line.value("reason");
    if (reason == null || reason.isBlank()) {
      throw line.usage("--reason \"…\" is required: say why, for the audit and the next engineer");
    }
    String forText = line.value("for");
    Duration duration = forText == null ? null : line.duration("for", forText);
    String actor = actor(line);
    line.done();
    Map<String, Object> arguments = arguments("scope", scope, "for", forText);
    return run(
        "pause",
        line,
        json,
        (actions, at) -> {
          Instant until = duration == null ? null : at.plus(duration);
          Request request = new Request("pause", actor, at, reason, arguments, true);
          return actions.pause(request, scope, until);
        });
  }

  /** {@code resume [--phase P] [--reason "…"] [--actor A] [--yes]}. */
  static int resume(List<String> args) {
    CommandLine line = new CommandLine(args);
    boolean json = line.flag("json");
    boolean yes = line.flag("yes");
    String phase = line.value("phase");
    String scope = phase == null ? null : phase(line, phase);
    String reason = line.value("reason");
    String actor = actor(line);
    line.done();
    Map<String, Object> arguments = arguments("scope", scope == null ? "every pause" : scope);
    return run(
        "resume",
        line,
        json,
        (actions, at) ->
            actions.resume(new Request("resume", actor, at, reason, arguments, yes), scope));
  }

  /** {@code retry <conferenceId>} or {@code retry --poison [--yes]}. */
  static int retry(List<String> args) {
    CommandLine line = new CommandLine(args);
    boolean json = line.flag("json");
    boolean yes = line.flag("yes");
    boolean poison = line.flag("poison");
    String reason = line.value("reason");
    String actor = actor(line);
    String idText = line.positional();
    if (poison == (idText != null)) {
      throw line.usage("give either a conference id or --poison (every row in poison backoff)");
    }
    UUID id = idText == null ? null : conferenceId(line, idText);
    line.done();
    Map<String, Object> arguments =
        id == null ? arguments("poison", true) : arguments("conferenceId", id.toString());
    return run(
        "retry",
        line,
        json,
        (actions, at) -> {
          Outcome o = actions.retry(new Request("retry", actor, at, reason, arguments, yes), id);
          if (o.result() == OperatorActions.Result.NOTHING && id != null) {
            return new Outcome(o.result(), o.rows(), null, actions.whyNotRetryable(id, at));
          }
          return o;
        });
  }

  /** {@code requeue --kafka-quarantined|--recorder-given-up [--since T] [--yes]}. */
  static int requeue(List<String> args) {
    CommandLine line = new CommandLine(args);
    boolean json = line.flag("json");
    boolean yes = line.flag("yes");
    // The shared flags are read like retry's on purpose: each command owns its own flag list.
    boolean kafka = line.flag("kafka-quarantined");
    boolean recorder = line.flag("recorder-given-up");
    if (kafka == recorder) {
      throw line.usage("give exactly one of --kafka-quarantined or --recorder-given-up");
    }
    String sinceText = line.value("since");
    String reason = line.value("reason");
    String actor = actor(line);
    // Parsed now (against the wall clock) so that a bad --since never starts anything.
    Instant since = sinceText == null ? null : line.since("since", sinceText, Instant.now());
    line.done();
    String action = kafka ? "requeue-kafka-quarantined" : "requeue-recorder-given-up";
    Map<String, Object> arguments =
        arguments("rows", kafka ? "kafka-quarantined" : "recorder-given-up", "since", since);
    return run(
        action,
        line,
        json,
        (actions, at) -> {
          Request request = new Request(action, actor, at, reason, arguments, yes);
          return kafka
              ? actions.requeueQuarantined(request, since)
              : actions.requeueGivenUp(request, since);
        });
  }

  @FunctionalInterface
  interface Act {
    Outcome act(OperatorActions actions, Instant at) throws Exception;
  }

  private static int run(String action, CommandLine line, boolean json, Act act) {
    return StatusCommand.withContext(
        action,
        lazily(line.rest()),
        (ctx, options, clock) -> {
          Clock c = clock;
          Outcome outcome =
              act.act(new OperatorActions(ctx.getBean(DataSource.class)), c.instant());
          logOutcome(action, outcome);
          int code =
              switch (outcome.result()) {
                case APPLIED -> 0;
                case PLAN_ONLY -> EXIT_PLAN;
                case NOTHING -> EXIT_NOTHING;
              };
          return new StatusCommand.Output(
              code, json ? CliJson.write(document(action, outcome)) : human(action, outcome));
        });
  }

  /**
   * An action needs the pool, the clock and the options, not the relay, the recorder client or the
   * gauges: only the beans it asks for are created (a second or more off every command).
   */
  static List<String> lazily(List<String> args) {
    List<String> all = new ArrayList<>(args);
    all.add("--spring.main.lazy-initialization=true");
    return all;
  }

  static void logOutcome(String action, Outcome o) {
    if (o.result() == OperatorActions.Result.APPLIED) {
      log.atInfo()
          .addKeyValue("action", action)
          .addKeyValue("rowsChanged", o.rows().size())
          .addKeyValue("auditId", o.auditId())
          .log("operator action");
    } else {
      log.atInfo()
          .addKeyValue("action", action)
          .addKeyValue("result", o.result().name().toLowerCase(java.util.Locale.ROOT))
          .addKeyValue("rowsMatched", o.rows().size())
          .log("operator action not applied: nothing changed");
    }
  }

  static Map<String, Object> document(String action, Outcome o) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("action", action);
    d.put(
        "result",
        switch (o.result()) {
          case APPLIED -> "applied";
          case PLAN_ONLY -> "plan";
          case NOTHING -> "nothing";
        });
    d.put("rowsMatched", o.rows().size());
    d.put("rowsChanged", o.result() == OperatorActions.Result.APPLIED ? o.rows().size() : 0);
    if (o.auditId() != null) {
      d.put("auditId", o.auditId());
    }
    if (o.message() != null) {
      d.put("message", o.message());
    }
    d.put("rows", o.rows());
    return d;
  }

  static String human(String action, Outcome o) {
    StringBuilder b = new StringBuilder();
    if (o.result() == OperatorActions.Result.NOTHING) {
      return action + ": nothing to do: " + o.message() + "; nothing changed";
    }
    b.append(action)
        .append(o.result() == OperatorActions.Result.APPLIED ? ": changed " : ": would change ")
        .append(o.rows().size())
        .append(o.rows().size() == 1 ? " row" : " rows")
        .append('\n');
    for (Map<String, Object> row : o.rows()) {
      b.append("  ").append(row).append('\n');
    }
    if (o.result() == OperatorActions.Result.PLAN_ONLY) {
      b.append("nothing changed: more than one row; run it again with --yes to change them");
    } else {
      b.append("audit #").append(o.auditId());
      if (o.message() != null) {
        b.append('\n').append(o.message());
      }
    }
    return b.toString();
  }

  /** {@code --phase P} as a pause scope; the whole reaper ({@link PauseState#ALL}) without it. */
  private static String scope(CommandLine line) {
    String phase = line.value("phase");
    return phase == null ? PauseState.ALL : phase(line, phase);
  }

  private static String phase(CommandLine line, String phase) {
    List<String> labels = new ArrayList<>();
    for (Phase p : Phase.values()) {
      labels.add(p.label());
    }
    if (!labels.contains(phase)) {
      throw line.usage("unknown phase '" + phase + "' (phases: " + String.join(", ", labels) + ")");
    }
    return phase;
  }

  static UUID conferenceId(CommandLine line, String text) {
    try {
      return UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      throw line.usage("'" + text + "' is not a conference id (a UUID)");
    }
  }

  /** {@code --actor}, else the OS user running the command. */
  static String actor(CommandLine line) {
    String actor = line.value("actor");
    if (actor != null && !actor.isBlank()) {
      return actor;
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

  static Map<String, @Nullable Object> arguments(@Nullable Object... pairs) {
    Map<String, @Nullable Object> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] != null) {
        m.put((String) pairs[i], pairs[i + 1] instanceof Instant t ? t.toString() : pairs[i + 1]);
      }
    }
    return m;
  }
}
