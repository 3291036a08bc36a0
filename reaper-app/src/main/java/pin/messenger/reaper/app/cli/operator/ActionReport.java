package pin.messenger.reaper.app.cli.operator;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.app.cli.CliContext;
import pin.messenger.reaper.app.cli.CliJson;
import pin.messenger.reaper.store.OperatorAction;
import pin.messenger.reaper.store.OperatorActions.Outcome;
import pin.messenger.reaper.store.OperatorActions.Result;

/**
 * What an operator action answers: its exit status, its log line ({@code operator action}), and
 * what it prints, a line per row for a person or one {@link Document} with {@code --json}.
 */
final class ActionReport {
  private static final Logger log = LoggerFactory.getLogger(ActionReport.class);

  /** Nothing matched (unknown id, nothing quarantined, nothing paused): nothing changed. */
  static final int EXIT_NOTHING = 3;

  /**
   * More than one row matched and {@code --yes} was not given, or {@code end} needs a choice: the
   * plan only, nothing changed.
   */
  static final int EXIT_PLAN = 4;

  private ActionReport() {}

  /** An action's outcome as {@code --json} prints it. */
  record Document(
      String action,
      String result,
      int rowsMatched,
      int rowsChanged,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Long auditId,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String message,
      List<Map<String, Object>> rows) {

    static Document of(OperatorAction action, Outcome o) {
      return new Document(
          action.label(),
          switch (o.result()) {
            case APPLIED -> "applied";
            case PLAN_ONLY -> "plan";
            case NOTHING -> "nothing";
          },
          o.rows().size(),
          o.result() == Result.APPLIED ? o.rows().size() : 0,
          o.auditId(),
          o.message(),
          o.rows());
    }
  }

  /** Logs the outcome and returns what to print and the exit status. */
  static CliContext.Output of(OperatorAction action, Outcome o, boolean json) {
    if (o.result() == Result.APPLIED) {
      log.atInfo()
          .addKeyValue("action", action.label())
          .addKeyValue("rowsChanged", o.rows().size())
          .addKeyValue("auditId", o.auditId())
          .log("operator action");
    } else {
      log.atInfo()
          .addKeyValue("action", action.label())
          .addKeyValue("result", o.result().name().toLowerCase(Locale.ROOT))
          .addKeyValue("rowsMatched", o.rows().size())
          .log("operator action not applied: nothing changed");
    }
    int code =
        switch (o.result()) {
          case APPLIED -> 0;
          case PLAN_ONLY -> EXIT_PLAN;
          case NOTHING -> EXIT_NOTHING;
        };
    return new CliContext.Output(
        code, json ? CliJson.write(Document.of(action, o)) : human(action, o));
  }

  static String human(OperatorAction action, Outcome o) {
    String name = action.label();
    if (action == OperatorAction.END && o.result() != Result.APPLIED) {
      return o.result() == Result.NOTHING
          ? "end: refused: " + o.message() + "; nothing changed"
          : "end: a choice is needed: " + o.message() + "; nothing changed";
    }
    if (o.result() == Result.NOTHING) {
      return name + ": nothing to do: " + o.message() + "; nothing changed";
    }
    StringBuilder b = new StringBuilder();
    b.append(name)
        .append(o.result() == Result.APPLIED ? ": changed " : ": would change ")
        .append(o.rows().size())
        .append(o.rows().size() == 1 ? " row" : " rows")
        .append('\n');
    for (Map<String, Object> row : o.rows()) {
      b.append("  ").append(row).append('\n');
    }
    if (o.result() == Result.PLAN_ONLY) {
      b.append("nothing changed: more than one row; run it again with --yes to change them");
    } else {
      b.append("audit #").append(o.auditId());
      if (o.message() != null) {
        b.append('\n').append(o.message());
      }
    }
    return b.toString();
  }
}
