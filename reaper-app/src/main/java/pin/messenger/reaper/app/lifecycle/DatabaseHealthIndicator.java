package pin.messenger.reaper.app.lifecycle;

import java.time.Clock;
import java.time.Duration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import pin.messenger.reaper.app.metrics.DatabaseGauges;

/**
 * Readiness and health of the database from the background reading of {@link DatabaseGauges}:
 * answered from memory at once, whatever the database does (Spring's own DataSource indicator waits
 * for a connection, 5 s while the database is down, past Kubernetes' 1 s probe timeout). UP when
 * the last reading succeeded and is recent.
 */
public final class DatabaseHealthIndicator implements HealthIndicator {
  private final DatabaseGauges database;
  private final Clock clock;

  public DatabaseHealthIndicator(DatabaseGauges database, Clock clock) {
    this.database = database;
    this.clock = clock;
  }

  /** A reading older than this no longer vouches for the database. */
  static Duration stale() {
    return DatabaseGauges.REFRESH.multipliedBy(3);
  }

  @Override
  public Health health() {
    DatabaseGauges.Probe probe = database.probe();
    if (probe == null) {
      return Health.down().withDetail("database", "not read yet").build();
    }
    Duration age = Duration.between(probe.at(), clock.instant());
    if (probe.up() && age.compareTo(stale()) <= 0) {
      return Health.up().withDetail("checkedAt", probe.at().toString()).build();
    }
    Health.Builder down = Health.down();
    if (probe.up()) {
      return down.withDetail("lastReadAt", probe.at().toString()).build();
    }
    return down.withDetail("downSince", probe.at().toString())
        .withDetail("error", String.valueOf(probe.error()))
        .build();
  }
}
