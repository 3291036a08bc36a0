package pin.messenger.reaper.app;

import java.io.PrintStream;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.store.Diagnostics;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.telemetry.QueuedConsoleAppender;

/**
 * {@code bin/reaper status [--json]} and {@code bin/reaper explain <conferenceId> [--json]}:
 * read-only answers for the on-call engineer, a human table by default, one JSON object with {@code
 * --json}.
 */
final class StatusCommand {
  private StatusCommand() {}

  static int status(List<String> args) {
    boolean json = args.remove("--json");
    ReaperCli.checkOptions(args);
    return withContext(
        "status",
        args,
        (ctx, diagnostics, options, clock) -> {
          Map<String, Object> status = diagnostics.status(clock.instant(), options);
          return new Output(0, json ? CliJson.write(status) : humanStatus(status));
        });
  }

  static int explain(List<String> args) {
    boolean json = args.remove("--json");
    if (args.isEmpty() || args.get(0).startsWith("--")) {
      throw new ReaperCli.UsageException("explain needs a conference id");
    }
    String text = args.remove(0);
    UUID id;
    try {
      id = UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      throw new ReaperCli.UsageException("'" + text + "' is not a conference id (a UUID)");
    }
    ReaperCli.checkOptions(args);
    return withContext(
        "explain",
        args,
        (ctx, diagnostics, options, clock) -> {
          Map<String, Object> explained = diagnostics.explain(id, clock.instant(), options);
          if (explained == null) {
            return new Output(
                3, json ? CliJson.error("no conference " + id) : "no conference " + id);
          }
          return new Output(0, json ? CliJson.write(explained) : humanExplain(explained));
        });
  }

  /**
   * Exit code and what to print once the application has shut down (so it is the last thing
   * printed).
   */
  record Output(int code, String text) {}

  @FunctionalInterface
  interface Action {
    Output run(
        ConfigurableApplicationContext ctx, Diagnostics d, ConferenceRoomReaperOptions o, Clock c)
        throws Exception;
  }

  static int withContext(String command, List<String> args, Action action) {
    // Reading only: never migrate from a diagnostic command.
    List<String> all = new java.util.ArrayList<>(args);
    all.add("--spring.flyway.enabled=false");
    ReaperCli.requireDatabase(all);
    // Stdout carries the document and nothing else (`status --json | jq` must work): while the
    // application runs, everything written to System.out (the console log appender writes through
    // it) goes to stderr; the document is printed on the real stdout once it has shut down.
    PrintStream document = System.out;
    System.setOut(System.err);
    Output output;
    try (ConfigurableApplicationContext ctx =
        ReaperCli.start(command, all, Map.of(), List.of(), true)) {
      Diagnostics d =
          new Diagnostics(ctx.getBean(DataSource.class), ctx.getBean(PostgresReaperStore.class));
      output =
          action.run(
              ctx, d, ctx.getBean(ConferenceRoomReaperOptions.class), ctx.getBean(Clock.class));
    } catch (Exception e) {
      output = new Output(1, CliJson.error(Failures.report(command, e)));
    } finally {
      // The log lines still queued go to stderr too, before stdout is the document's again.
      QueuedConsoleAppender.flushAll();
      System.setOut(document);
    }
    document.println(output.text());
    return output.code();
  }

  // The documents are Diagnostics' untyped maps: every key read here is one Diagnostics always
  // writes (its tests and the black-box tests read them), so a missing one is a bug that should
  // fail loudly here rather than be papered over; NullAway cannot see into the maps.
  @SuppressWarnings({"unchecked", "NullAway"})
  static String humanSchedule(Map<String, Object> s) {
    StringBuilder b = new StringBuilder();
    Map<String, Object> wake = (Map<String, Object>) s.get("nextWakeup");
    b.append("schedule: ")
        .append(s.get("mode"))
        .append(" (polling interval ")
        .append(s.get("pollingInterval"))
        .append(", coalesce ")
        .append(s.get("coalesce"))
        .append(", min gap ")
        .append(s.get("minGap"))
        .append(")\n");
    b.append(String.format("%-18s %-32s%n", "phase", "next due"));
    ((Map<String, Map<String, Object>>) s.get("nextDue"))
        .forEach(
            (phase, p) ->
                b.append(
                    String.format(
                        "%-18s %-32s%s%n",
                        phase,
                        dash(p.get("at")),
                        Boolean.TRUE.equals(p.get("paused")) ? " (paused: not woken for)" : "")));
    b.append("next wake-up (for a cycle starting now): ")
        .append(wake.get("at"))
        .append(" in ")
        .append(wake.get("inSeconds"))
        .append(" s, for ")
        .append(wake.get("reason"))
        .append("\n\n");
    return b.toString();
  }

  @SuppressWarnings({"unchecked", "NullAway"})
  static String humanStatus(Map<String, Object> s) {
    StringBuilder b = new StringBuilder();
    b.append("conference-room-reaper status at ").append(s.get("asOf")).append("\n\n");
    b.append(
        String.format("%-18s %8s  %-32s %10s%n", "phase", "due", "oldest due since", "age (s)"));
    ((Map<String, Map<String, Object>>) s.get("phases"))
        .forEach(
            (phase, p) ->
                b.append(
                    String.format(
                        "%-18s %8s  %-32s %10s%n",
                        phase,
                        p.get("due"),
                        dash(p.get("oldestDueSince")),
                        dash(p.get("oldestDueAgeSeconds")))));
    b.append(String.format("%-18s %8s%n%n", "active backlog", s.get("activeBacklog")));
    b.append(humanSchedule((Map<String, Object>) s.get("schedule")));
    Map<String, Object> lock = (Map<String, Object>) s.get("runLock");
    b.append("run lock: ")
        .append(
            lock == null
                ? "free"
                : "held by pid "
                    + lock.get("pid")
                    + " ("
                    + lock.get("application_name")
                    + ", "
                    + dash(lock.get("client_addr"))
                    + ") since "
                    + lock.get("xact_start")
                    + ", state "
                    + lock.get("state"))
        .append("\n\n");
    b.append(RunnersView.runners((List<Map<String, Object>>) s.get("runners")));
    b.append(humanPauses((List<?>) s.get("pauses")));
    b.append("poison rows: ").append(s.get("poisonCount")).append('\n');
    for (Map<String, Object> p : (List<Map<String, Object>>) s.get("poison")) {
      b.append(
          String.format(
              "  %s  %-12s attempts %-3s next %s%n    %s%n",
              p.get("id"),
              p.get("status"),
              p.get("reaper_attempts"),
              dash(p.get("reaper_next_attempt_at")),
              p.get("reaper_last_error")));
    }
    // One String.format per row on purpose: each row has its own trailing note; the columns match
    // the header line.
    Map<String, Object> d = (Map<String, Object>) s.get("delivery");
    b.append('\n')
        .append(String.format("%-26s %8s  %s%n", "delivery", "pending", "oldest pending"));
    b.append(
        String.format(
            "%-26s %8s  %s   (quarantined %s)%n",
            "kafka outbox",
            d.get("outbox_pending"),
            dash(d.get("outbox_oldest")),
            d.get("outbox_quarantined")));
    b.append(
        String.format(
            "%-26s %8s  %s   (given up %s)%n",
            "recorder stop requests",
            d.get("recorder_pending"),
            dash(d.get("recorder_oldest")),
            d.get("recorder_gave_up")));
    b.append(
        String.format(
            "%-26s %8s  (dispatched by realtime-dispatch)%n",
            "realtime outbox", d.get("realtime_pending")));
    return b.toString();
  }

  /** The pauses in force: every runner skips these phases until they are resumed or end. */
  static String humanPauses(List<?> pauses) {
    if (pauses == null || pauses.isEmpty()) {
      return "paused: nothing\n\n";
    }
    StringBuilder b = new StringBuilder("paused (bin/reaper resume lifts them):\n");
    for (Object o : pauses) {
      PauseState.Pause p = (PauseState.Pause) o;
      b.append(
          String.format(
              "  %-18s since %s by %s, %s: %s%n",
              p.scope().equals(PauseState.ALL) ? "ALL PHASES" : p.scope(),
              p.pausedAt(),
              p.actor(),
              p.until() == null ? "until resumed" : "until " + p.until(),
              p.reason()));
    }
    return b.append('\n').toString();
  }

  @SuppressWarnings({"unchecked", "NullAway"}) // Diagnostics' untyped map, see humanStatus
  static String humanExplain(Map<String, Object> e) {
    StringBuilder b = new StringBuilder();
    Map<String, Object> s = (Map<String, Object>) e.get("session");
    b.append("conference ").append(s.get("id")).append('\n');
    // The explain display order, not SchemaVerifier's list of required columns (a different
    // purpose and order); a column missing from the row prints as a dash.
    for (String k :
        List.of(
            "status",
            "end_reason",
            "chat_id",
            "deal_id",
            "created_at",
            "started_at",
            "last_activity_at",
            "ended_at",
            "updated_at",
            "active_participant_count",
            "peak_participant_count",
            "duration_seconds",
            "reaper_attempts",
            "reaper_last_error",
            "reaper_last_error_at",
            "reaper_next_attempt_at")) {
      b.append(String.format("  %-26s %s%n", k, dash(s.get(k))));
    }
    b.append(RunnersView.errorHistory((List<?>) e.get("errorHistory")));
    b.append("\nphases\n");
    ((Map<String, Object>) e.get("phases"))
        .forEach((k, v) -> b.append(String.format("  %-18s %s%n", k, v)));
    Map<String, Object> lock = (Map<String, Object>) e.get("rowLock");
    b.append("\nrow lock: ");
    if (Boolean.TRUE.equals(lock.get("locked"))) {
      b.append("HELD");
      for (Map<String, Object> h : (List<Map<String, Object>>) lock.get("heldBy")) {
        b.append(
            String.format(
                "%n  pid %s (%s, %s) in transaction since %s, %s: %s",
                h.get("pid"),
                h.get("application_name"),
                dash(h.get("client_addr")),
                h.get("xact_start"),
                h.get("state"),
                h.get("query")));
      }
      b.append('\n');
    } else if (lock.get("error") != null) {
      b.append("unknown (").append(lock.get("error")).append(")\n");
    } else {
      b.append("free\n");
    }
    section(
        b,
        "integration outbox (conference-ended)",
        (List<Map<String, Object>>) e.get("integrationOutbox"));
    section(b, "realtime outbox", (List<Map<String, Object>>) e.get("realtimeOutbox"));
    section(b, "recorder stop requests", (List<Map<String, Object>>) e.get("recorderStopRequests"));
    return b.toString();
  }

  private static void section(StringBuilder b, String title, List<Map<String, Object>> rows) {
    b.append('\n')
        .append(title)
        .append(": ")
        .append(rows.isEmpty() ? "none" : rows.size())
        .append('\n');
    for (Map<String, Object> r : rows) {
      b.append("  ").append(r).append('\n');
    }
  }

  private static Object dash(@org.jspecify.annotations.Nullable Object o) {
    return o == null ? "-" : o;
  }
}
