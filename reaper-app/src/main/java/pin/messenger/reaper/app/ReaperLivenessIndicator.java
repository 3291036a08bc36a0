package pin.messenger.reaper.app;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;

/**
 * Liveness of the worker: DOWN when, while enabled, no cycle has completed for {@code 2 ×
 * polling-interval} (the spec's "job did not run" alert, visible to Kubernetes without Prometheus).
 * A cycle skipped because another instance held the run lock counts as completed: the job ran,
 * someone else did the work.
 */
final class ReaperLivenessIndicator implements HealthIndicator {
  private final java.util.function.Supplier<Instant> lastCycleCompleted;
  private final ConferenceRoomReaperOptions options;
  private final Clock clock;
  private final Instant startedAt;

  ReaperLivenessIndicator(
      java.util.function.Supplier<Instant> lastCycleCompleted,
      ConferenceRoomReaperOptions options,
      Clock clock) {
    this.lastCycleCompleted = lastCycleCompleted;
    this.options = options;
    this.clock = clock;
    this.startedAt = clock.instant();
  }

  @Override
  public Health health() {
    if (!options.enabled()) {
      return Health.up().withDetail("enabled", false).build();
    }
    Instant now = clock.instant();
    Duration limit = options.pollingInterval().multipliedBy(2);
    Instant last = lastCycleCompleted.get();
    Instant since = last != null ? last : startedAt;
    Duration quiet = Duration.between(since, now);
    Health.Builder health = quiet.compareTo(limit) > 0 ? Health.down() : Health.up();
    return health
        .withDetail("lastCycleCompleted", last == null ? "none yet" : last.toString())
        .withDetail("limit", limit.toString())
        .build();
  }
}
