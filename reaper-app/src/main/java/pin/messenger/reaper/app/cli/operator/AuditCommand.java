package pin.messenger.reaper.app.cli.operator;

import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import pin.messenger.reaper.app.cli.CliContext;
import pin.messenger.reaper.app.cli.CliJson;
import pin.messenger.reaper.app.cli.CliOptions;
import pin.messenger.reaper.app.cli.CommandBase;
import pin.messenger.reaper.store.OperatorAction;
import pin.messenger.reaper.store.OperatorActions;
import pin.messenger.reaper.store.OperatorActions.AuditFilter;

/**
 * {@code audit [--action A] [--actor NAME] [--since T] [--limit N] [--json]}: the operator actions,
 * newest first, each with the ids it changed and the database role that wrote it beside the actor
 * the caller typed. Read-only: the worker role may run it (on-call starts with the worker's
 * settings).
 */
@Command(
    name = "audit",
    customSynopsis = "audit [--limit N] [--action A] [--actor NAME] [--since T] [--json]",
    description = {
      "the newest operator actions (default 20), each with the ids it",
      "changed and the database role beside the actor (worker role may read)"
    })
public final class AuditCommand extends CommandBase {
  static final int DEFAULT_LIMIT = 20;

  /** What {@code audit --json} prints: the actions, newest first. */
  record Document(List<Map<String, Object>> actions) {}

  @Option(names = "--json", description = "one JSON object instead of the table")
  boolean json;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "at most N actions, 1 to 1000 (default 20)",
      converter = CliOptions.Limit.class)
  int limit = DEFAULT_LIMIT;

  @Option(
      names = "--action",
      paramLabel = "A",
      description = "only this action",
      converter = CliOptions.Action.class)
  @Nullable OperatorAction action;

  @Option(
      names = "--actor",
      paramLabel = "NAME",
      description = "only this actor",
      converter = CliOptions.ActorName.class)
  @Nullable String actor;

  @Mixin CliOptions.SinceOption since = new CliOptions.SinceOption();

  @Override
  public void run(CliContext cli) {
    AuditFilter filter = new AuditFilter(action, actor, since.since, limit);
    cli.inApplication(
        "audit",
        springOptions(),
        (ctx, options, clock) -> {
          List<Map<String, Object>> rows =
              new OperatorActions(ctx.getBean(DataSource.class)).recent(filter);
          return new CliContext.Output(0, json ? CliJson.write(new Document(rows)) : human(rows));
        });
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
