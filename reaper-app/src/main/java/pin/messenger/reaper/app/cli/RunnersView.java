package pin.messenger.reaper.app.cli;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import pin.messenger.reaper.store.Runners;

/**
 * The human form of {@code status}'s runners and of {@code explain}'s error history (the JSON forms
 * are the records as they are).
 */
final class RunnersView {
  private RunnersView() {}

  /**
   * Live runners and silent ones (with how long they have been silent), one line each; runners that
   * stopped cleanly are counted, not listed.
   */
  static String runners(List<Runners.Runner> runners) {
    long live = runners.stream().filter(r -> "live".equals(r.state())).count();
    long silent = runners.stream().filter(r -> "silent".equals(r.state())).count();
    long stopped = runners.size() - live - silent;
    StringBuilder b =
        new StringBuilder(
            String.format(
                "runners: %d live, %d silent (%d stopped cleanly, kept for reaper.runners.retention)%n",
                live, silent, stopped));
    for (Runners.Runner r : runners) {
      String state = r.state();
      if ("stopped".equals(state)) {
        continue;
      }
      b.append(
          String.format(
              "  %-6s %s  %s pid %s, version %s, up since %s%n"
                  + "         last cycle %s started %s, completed %s, %s%s%n",
              "live".equals(state) ? "LIVE" : "SILENT",
              r.instanceId(),
              r.host(),
              dash(r.pid()),
              r.version(),
              r.startedAt(),
              dash(r.lastCycleId()),
              dash(r.lastCycleStartedAt()),
              inProgress(r) ? "- (in progress)" : dash(r.lastCycleCompletedAt()),
              Boolean.TRUE.equals(r.lastCycleHeldLock())
                  ? "held the run lock"
                  : Boolean.FALSE.equals(r.lastCycleHeldLock())
                      ? "skipped (lock held elsewhere)"
                      : "lock: -",
              pauses(r.pausedPhases())));
      if ("silent".equals(state)) {
        b.append(
            String.format(
                "         SILENT for %s s (last seen %s; silent after %s ms without a refresh)%n",
                r.seenSecondsAgo(), r.lastSeenAt(), r.silentAfterMs()));
      }
    }
    return b.append('\n').toString();
  }

  /** Refreshed at a cycle's start: its end is the previous cycle's, or none yet. */
  private static boolean inProgress(Runners.Runner r) {
    Instant started = r.lastCycleStartedAt();
    Instant completed = r.lastCycleCompletedAt();
    return started != null && (completed == null || completed.isBefore(started));
  }

  private static String pauses(List<Object> phases) {
    return phases.isEmpty() ? "" : ", paused: " + phases;
  }

  /** A poison row's last errors, newest first. */
  static String errorHistory(List<Object> history) {
    StringBuilder b =
        new StringBuilder("\nerror history (newest first, the last 5 attempts kept): ");
    if (history.isEmpty()) {
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
