package pin.messenger.reaper.bench;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the shipped-drain section keeps of a worker's stdout as it arrives: per cycle that reaped,
 * the arrival times of its {@code cycle started} and {@code cycle completed} lines, and the count
 * of {@code conference reaped} lines.
 */
final class DrainLines implements ChildOutput.Listener {
  record Cycle(long started, long completed, int reaped, long durationMs) {}

  private final List<Cycle> reaping = new ArrayList<>();
  private long started;
  private long reapedLines;

  @Override
  public void line(String line, long now) {
    if (line.contains(WorkerLog.CONFERENCE_REAPED)) {
      synchronized (this) {
        reapedLines++;
      }
    } else if (line.contains(WorkerLog.CYCLE_STARTED)) {
      started = now;
    } else if (line.contains(WorkerLog.CYCLE_COMPLETED)) {
      int reaped = (int) WorkerLog.field(line, "emptyTimeout");
      if (reaped > 0) {
        synchronized (this) {
          reaping.add(new Cycle(started, now, reaped, WorkerLog.field(line, "durationMs")));
        }
      }
    }
  }

  synchronized int reapingCycles() {
    return reaping.size();
  }

  synchronized @Nullable Cycle reaping(int i) {
    return i < reaping.size() ? reaping.get(i) : null;
  }

  synchronized long reapedLines() {
    return reapedLines;
  }

  /** Rooms reaped by the reaping cycles from the {@code from}-th on. */
  synchronized int reapedSince(int from) {
    int reaped = 0;
    for (int i = from; i < reaping.size(); i++) {
      reaped += reaping.get(i).reaped();
    }
    return reaped;
  }
}
