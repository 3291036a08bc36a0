package pin.messenger.reaper.app.lifecycle;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;

/**
 * Liveness means "this process is wedged", never "a dependency is down": DOWN only when, while
 * enabled, the loop has not started a cycle for {@code lock-ttl + polling-interval} — its thread
 * died, or a cycle is stuck past the point where the server has already freed its run lock. A cycle
 * that fails because the database is down still starts on time, so a database outage keeps liveness
 * UP (a restart would not bring the database back). Neither does a {@code run} that still waits for
 * the database at start-up ({@link DatabaseStartup}): the limit counts from the loop's start.
 * Whether the job is getting its work done is the alerts' business ({@code
 * ConferenceReaperNotRunning}, errors) and readiness shows the database.
 */
public final class ReaperLivenessIndicator implements HealthIndicator {
  private final Supplier<@Nullable Instant> lastCycleStarted;
  private final Supplier<@Nullable Instant> loopStarted;
  private final ConferenceRoomReaperOptions options;
  private final Clock clock;

  /** A loop that started when this indicator was made. */
  public ReaperLivenessIndicator(
      Supplier<@Nullable Instant> lastCycleStarted,
      ConferenceRoomReaperOptions options,
      Clock clock) {
    this(lastCycleStarted, constant(clock.instant()), options, clock);
  }

  /**
   * @param loopStarted when the loop started, null while {@code run} still waits for the database
   *     at start-up (no wedge: liveness UP, readiness DOWN)
   */
  public ReaperLivenessIndicator(
      Supplier<@Nullable Instant> lastCycleStarted,
      Supplier<@Nullable Instant> loopStarted,
      ConferenceRoomReaperOptions options,
      Clock clock) {
    this.lastCycleStarted = lastCycleStarted;
    this.loopStarted = loopStarted;
    this.options = options;
    this.clock = clock;
  }

  private static Supplier<@Nullable Instant> constant(Instant at) {
    return () -> at;
  }

  /** How long the loop may go without starting a cycle before it counts as wedged. */
  public Duration limit() {
    return options.lockTtl().plus(options.pollingInterval());
  }

  @Override
  public Health health() {
    if (!options.enabled()) {
      return Health.up().withDetail("enabled", false).build();
    }
    Instant last = lastCycleStarted.get();
    Instant since = last != null ? last : loopStarted.get();
    if (since == null) {
      return Health.up().withDetail("lastCycleStarted", "waiting for the database").build();
    }
    Duration quiet = Duration.between(since, clock.instant());
    Health.Builder health = quiet.compareTo(limit()) > 0 ? Health.down() : Health.up();
    return health
        .withDetail("lastCycleStarted", last == null ? "none yet" : last.toString())
        .withDetail("limit", limit().toString())
        .build();
  }
}
