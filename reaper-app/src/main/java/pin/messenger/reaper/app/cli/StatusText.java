package pin.messenger.reaper.app.cli;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.store.Diagnostics;
import pin.messenger.reaper.store.Explanation;
import pin.messenger.reaper.store.RowLockProbe;
import pin.messenger.reaper.store.StatusReport;

/**
 * The human answers of {@code status} and {@code explain} (their JSON is the records as they are).
 */
final class StatusText {
  private StatusText() {}

  static String humanSchedule(StatusReport.Schedule s) {
    StringBuilder b = new StringBuilder();
    StatusReport.NextWakeup wake = s.nextWakeup();
    b.append("schedule: ")
        .append(s.mode())
        .append(" (polling interval ")
        .append(s.pollingInterval())
        .append(", coalesce ")
        .append(s.coalesce())
        .append(", min gap ")
        .append(s.minGap())
        .append(")\n");
    b.append(String.format("%-18s %-32s%n", "phase", "next due"));
    s.nextDue()
        .forEach(
            (phase, p) ->
                b.append(
                    String.format(
                        "%-18s %-32s%s%n",
                        phase, dash(p.at()), p.paused() ? " (paused: not woken for)" : "")));
    b.append("next wake-up (for a cycle starting now): ")
        .append(wake.at())
        .append(" in ")
        .append(wake.inSeconds())
        .append(" s, for ")
        .append(wake.reason())
        .append("\n\n");
    return b.toString();
  }

  static String humanStatus(StatusReport.Status s) {
    StringBuilder b = new StringBuilder();
    b.append("conference-room-reaper status at ").append(s.asOf()).append("\n\n");
    b.append(
        String.format("%-18s %8s  %-32s %10s%n", "phase", "due", "oldest due since", "age (s)"));
    s.phases()
        .forEach(
            (phase, p) ->
                b.append(
                    String.format(
                        "%-18s %8s  %-32s %10s%n",
                        phase, p.due(), dash(p.oldestDueSince()), dash(p.oldestDueAgeSeconds()))));
    b.append(String.format("%-18s %8s%n%n", "active backlog", s.activeBacklog()));
    b.append(humanSchedule(s.schedule()));
    StatusReport.RunLockHolder lock = s.runLock();
    b.append("run lock: ")
        .append(
            lock == null
                ? "free"
                : "held by pid "
                    + lock.pid()
                    + " ("
                    + lock.applicationName()
                    + ", "
                    + dash(lock.clientAddr())
                    + ") since "
                    + lock.xactStart()
                    + ", state "
                    + lock.state())
        .append("\n\n");
    b.append(RunnersView.runners(s.runners()));
    b.append(humanPauses(s.pauses()));
    b.append("poison rows: ").append(s.poisonCount()).append('\n');
    for (StatusReport.PoisonRow p : s.poison()) {
      b.append(
          String.format(
              "  %s  %-12s attempts %-3s next %s%n    %s%n",
              p.id(),
              p.status(),
              p.reaperAttempts(),
              dash(p.reaperNextAttemptAt()),
              p.reaperLastError()));
    }
    // Each row has its own trailing note; the columns match the header line.
    Diagnostics.DeliveryBacklog d = s.delivery();
    b.append('\n')
        .append(String.format("%-26s %8s  %s%n", "delivery", "pending", "oldest pending"));
    if (s.outboxMode().equals("relay")) {
      b.append(
          String.format(
              "%-26s %8s  %s   (quarantined %s)%n",
              "kafka outbox", d.outboxPending(), dash(d.outboxOldest()), d.outboxQuarantined()));
    } else {
      b.append(DebeziumModeText.statusLine(d));
    }
    b.append(
        String.format(
            "%-26s %8s  %s   (given up %s)%n",
            "recorder stop requests",
            d.recorderPending(),
            dash(d.recorderOldest()),
            d.recorderGaveUp()));
    b.append(
        String.format(
            "%-26s %8s  (dispatched by realtime-dispatch)%n",
            "realtime outbox", d.realtimePending()));
    return b.toString();
  }

  /** The pauses in force: every runner skips these phases until they are resumed or end. */
  static String humanPauses(List<PauseState.Pause> pauses) {
    if (pauses.isEmpty()) {
      return "paused: nothing\n\n";
    }
    StringBuilder b = new StringBuilder("paused (bin/reaper resume lifts them):\n");
    for (PauseState.Pause p : pauses) {
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

  static String humanExplain(Explanation.Explained e) {
    StringBuilder b = new StringBuilder();
    Map<String, Object> s = e.session();
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
    b.append(RunnersView.errorHistory(e.errorHistory()));
    b.append("\nphases\n");
    e.phases().forEach((k, v) -> b.append(String.format("  %-18s %s%n", k, v)));
    b.append("\nrow lock: ");
    if (e.rowLock() instanceof RowLockProbe.Unknown unknown) {
      b.append("unknown (").append(unknown.error()).append(")\n");
    } else if (e.rowLock() instanceof RowLockProbe.Checked lock && lock.locked()) {
      b.append("HELD");
      for (RowLockProbe.Holder h : lock.heldBy()) {
        b.append(
            String.format(
                "%n  pid %s (%s, %s) in transaction since %s, %s: %s",
                h.pid(),
                h.applicationName(),
                dash(h.clientAddr()),
                h.xactStart(),
                h.state(),
                h.query()));
      }
      b.append('\n');
    } else {
      b.append("free\n");
    }
    section(b, "integration outbox (conference-ended)", e.integrationOutbox());
    section(b, "realtime outbox", e.realtimeOutbox());
    section(b, "recorder stop requests", e.recorderStopRequests());
    return b.toString();
  }

  /** Each row as its columns, as {@code explain --json} names them. */
  private static void section(StringBuilder b, String title, List<? extends Record> rows) {
    b.append('\n')
        .append(title)
        .append(": ")
        .append(rows.isEmpty() ? "none" : rows.size())
        .append('\n');
    for (Record r : rows) {
      b.append("  ").append(CliJson.columns(r)).append('\n');
    }
  }

  private static Object dash(@Nullable Object o) {
    return o == null ? "-" : o;
  }
}
