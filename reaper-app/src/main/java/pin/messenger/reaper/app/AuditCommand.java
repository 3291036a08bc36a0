package pin.messenger.reaper.app;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.store.OperatorActions;
import pin.messenger.reaper.store.OperatorActions.AuditFilter;

/**
 * {@code audit [--action A] [--actor NAME] [--since T] [--limit N] [--json]}: the operator actions,
 * newest first, each with the ids it changed and the database role that wrote it beside the actor
 * the caller typed. Read-only: the worker role may run it (on-call starts with the worker's
 * settings).
 */
final class AuditCommand {
  static final int DEFAULT_LIMIT = 20;

  private AuditCommand() {}

  static int audit(List<String> args) {
    CommandLine line = new CommandLine(args);
    boolean json = line.flag("json");
    String limitText = line.value("limit");
    int limit = DEFAULT_LIMIT;
    if (limitText != null) {
      try {
        limit = Integer.parseInt(limitText);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > 1000) {
        throw line.usage("--limit '" + limitText + "' must be a number from 1 to 1000");
      }
    }
    String action = nonBlank(line, "action");
    if (action != null && !OperatorActions.ACTIONS.contains(action)) {
      // A typo would otherwise read as "nothing recorded".
      throw line.usage(
          "unknown action '"
              + action
              + "' (one of "
              + String.join(", ", OperatorActions.ACTIONS)
              + ")");
    }
    String actor = nonBlank(line, "actor");
    String sinceText = line.value("since");
    // Parsed now (against the wall clock) so that a bad --since never starts anything.
    Instant since = sinceText == null ? null : line.since("since", sinceText, Instant.now());
    line.done();
    AuditFilter filter = new AuditFilter(action, actor, since, limit);
    return StatusCommand.withContext(
        "audit",
        OperatorCommand.lazily(line.rest()),
        (ctx, options, clock) -> {
          List<Map<String, Object>> rows =
              new OperatorActions(ctx.getBean(DataSource.class)).recent(filter);
          return new StatusCommand.Output(
              0, json ? CliJson.write(Map.of("actions", rows)) : human(rows));
        });
  }

  private static @Nullable String nonBlank(CommandLine line, String option) {
    String value = line.value(option);
    if (value != null && value.isBlank()) {
      throw line.usage("--" + option + " needs a value");
    }
    return value;
  }

  static String human(List<Map<String, Object>> rows) {
    if (rows.isEmpty()) {
      return "no operator action recorded (that matches)";
    }
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "%-6s %-27s %-28s %-26s %5s  %s%n",
            "id", "at", "actor (db role)", "action", "rows", "reason"));
    for (Map<String, Object> r : rows) {
      b.append(
          String.format(
              "%-6s %-27s %-28s %-26s %5s  %s%n       arguments %s%n       ids %s%n",
              r.get("id"),
              r.get("at"),
              r.get("actor") + " (" + (r.get("db_role") == null ? "-" : r.get("db_role")) + ")",
              r.get("action"),
              r.get("rows_changed"),
              r.get("reason") == null ? "-" : r.get("reason"),
              r.get("arguments"),
              r.get("ids")));
    }
    return b.toString().stripTrailing();
  }
}
