package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Live conferences past their window at {@code asOf}: per phase the count and the oldest reference
 * time (the moment the oldest row's window started counting), and {@code total} counting each row
 * once.
 */
public record Backlog(Instant asOf, Map<Phase, PhaseBacklog> phases, long total) {

  /** One phase's due rows: how many, and since when the oldest has been due. */
  public record PhaseBacklog(long due, @Nullable Instant oldestDueSince) {}

  public PhaseBacklog phase(Phase phase) {
    return phases.getOrDefault(phase, new PhaseBacklog(0, null));
  }
}
