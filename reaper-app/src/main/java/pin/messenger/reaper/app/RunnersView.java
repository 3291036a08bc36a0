package pin.messenger.reaper.app;

import java.util.List;
import java.util.Map;

/**
 * The human form of {@code status}'s runners and of {@code explain}'s error history (the JSON forms
 * are the maps as they are).
 */
final class RunnersView {
  private RunnersView() {}

  /**
   * Live runners and silent ones (with how long they have been silent), one line each; runners that
   * stopped cleanly are counted, not listed.
   */
  static String runners(List<Map<String, Object>> runners) {
    long live = runners.stream().filter(r -> "live".equals(r.get("state"))).count();
    long silent = runners.stream().filter(r -> "silent".equals(r.get("state"))).count();
    long stopped = runners.size() - live - silent;
    StringBuilder b =
        new StringBuilder(
            String.format(
                "runners: %d live, %d silent (%d stopped cleanly, kept for reaper.runners.retention)%n",
                live, silent, stopped));
    for (Map<String, Object> r : runners) {
      Object state = r.get("state");
      if ("stopped".equals(state)) {
        continue;
      }
      b.append(
          String.format(
              "  %-6s %s  %s pid %s, version %s, up since %s%n"
                  + "         last cycle %s started %s, completed %s, %s%s%n",
              "live".equals(state) ? "LIVE" : "SILENT",
              r.get("instance_id"),
              r.get("host"),
              dash(r.get("pid")),
              r.get("version"),
              r.get("started_at"),
              dash(r.get("last_cycle_id")),
              dash(r.get("last_cycle_started_at")),
              inProgress(r) ? "- (in progress)" : dash(r.get("last_cycle_completed_at")),
              Boolean.TRUE.equals(r.get("last_cycle_held_lock"))
                  ? "held the run lock"
                  : Boolean.FALSE.equals(r.get("last_cycle_held_lock"))
                      ? "skipped (lock held elsewhere)"
                      : "lock: -",
              pauses(r.get("paused_phases"))));
      if ("silent".equals(state)) {
        b.append(
            String.format(
                "         SILENT for %s s (last seen %s; silent after %s ms without a refresh)%n",
                r.get("seen_seconds_ago"), r.get("last_seen_at"), r.get("silent_after_ms")));
      }
    }
    return b.append('\n').toString();
  }

  /** Refreshed at a cycle's start: its end is the previous cycle's, or none yet. */
  private static boolean inProgress(Map<String, Object> r) {
    return r.get("last_cycle_started_at") instanceof java.time.Instant started
        && (!(r.get("last_cycle_completed_at") instanceof java.time.Instant completed)
            || completed.isBefore(started));
  }

  private static String pauses(@org.jspecify.annotations.Nullable Object phases) {
    return phases instanceof List<?> l && !l.isEmpty() ? ", paused: " + l : "";
  }

  /** A poison row's last errors, newest first. */
  static String errorHistory(List<?> history) {
    StringBuilder b =
        new StringBuilder("\nerror history (newest first, the last 5 attempts kept): ");
    if (history == null || history.isEmpty()) {
      return b.append("none\n").toString();
    }
    b.append(history.size()).append('\n');
    for (Object o : history) {
      if (o instanceof Map<?, ?> e) {
        b.append(
            String.format(
                "  attempt %-4s at %s%n    %s%n", e.get("attempt"), e.get("at"), e.get("error")));
      }
    }
    return b.toString();
  }

  private static Object dash(@org.jspecify.annotations.Nullable Object o) {
    return o == null ? "-" : o;
  }
}
