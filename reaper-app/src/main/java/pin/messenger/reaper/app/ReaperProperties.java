package pin.messenger.reaper.app;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import pin.messenger.reaper.core.ClockSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Schedule;

/**
 * Binding of {@code reaper.*} (relaxed: {@code REAPER_BATCH_SIZE} works). A property that is not
 * set binds as null and takes the core's default ({@link ConferenceRoomReaperOptions#defaults()}):
 * the defaults are written once, in the core. Validation is the core options' own, so a bad value
 * fails start-up naming the property.
 */
@ConfigurationProperties(prefix = "reaper")
public record ReaperProperties(
    Duration pollingInterval,
    Duration emptyRoomGrace,
    Duration provisionTimeout,
    Duration staleLiveTimeout,
    Integer batchSize,
    Duration lockTtl,
    Duration maxRunDuration,
    Duration statementTimeout,
    Boolean enabled,
    ClockSource clock,
    Schedule schedule,
    @DefaultValue NextDue nextDue,
    @DefaultValue Drain drain,
    @DefaultValue Schema schema,
    @DefaultValue Runners runners) {

  private static final ConferenceRoomReaperOptions DEFAULTS =
      ConferenceRoomReaperOptions.defaults();

  // Each unset field falls back to the core default, field by field on purpose (the Spring
  // binding mirrors ConferenceRoomReaperOptions); ConfigurationDefaultsTest checks they agree.
  public ReaperProperties {
    pollingInterval = or(pollingInterval, DEFAULTS.pollingInterval());
    emptyRoomGrace = or(emptyRoomGrace, DEFAULTS.emptyRoomGrace());
    provisionTimeout = or(provisionTimeout, DEFAULTS.provisionTimeout());
    staleLiveTimeout = or(staleLiveTimeout, DEFAULTS.staleLiveTimeout());
    batchSize = or(batchSize, DEFAULTS.batchSize());
    lockTtl = or(lockTtl, DEFAULTS.lockTtl());
    maxRunDuration = or(maxRunDuration, DEFAULTS.maxRunDuration());
    statementTimeout = or(statementTimeout, DEFAULTS.statementTimeout());
    enabled = or(enabled, DEFAULTS.enabled());
    clock = or(clock, DEFAULTS.clock());
    schedule = or(schedule, DEFAULTS.schedule());
  }

  /** The next-due schedule's delays ({@code reaper.next-due.*}); defaults are the core's. */
  public record NextDue(Duration coalesce, Duration minGap) {
    public NextDue {
      coalesce = or(coalesce, DEFAULTS.nextDueCoalesce());
      minGap = or(minGap, DEFAULTS.nextDueMinGap());
    }
  }

  /** Drain mode (beyond the spec, off by default); defaults are the core's. */
  public record Drain(Boolean enabled, Duration pause) {
    public Drain {
      enabled = or(enabled, DEFAULTS.drainEnabled());
      pause = or(pause, DEFAULTS.drainPause());
    }
  }

  /**
   * {@code reaper.schema.migrate}: apply the reaper's migrations at start, or only verify the
   * schema. An option of the application only (the core never migrates), so its default is here.
   */
  public record Schema(@DefaultValue("true") boolean migrate) {}

  /**
   * {@code reaper.runners.retention}: rows of runners not seen for longer than this (stopped or
   * gone silent) are deleted by the live runners. An option of the application only (the core has
   * no runners' table), so its default is here: one day.
   */
  public record Runners(@DefaultValue("1d") Duration retention) {
    public Runners {
      if (retention == null || retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException(
            "Invalid conference-room-reaper configuration: reaper.runners.retention must be"
                + " positive but was "
                + retention);
      }
    }
  }

  // Lists the options' arguments like ConferenceRoomReaperOptions.Builder#build on purpose: the
  // Spring binding stays out of the core; ConfigurationDefaultsTest checks they agree.
  public ConferenceRoomReaperOptions toOptions() {
    return new ConferenceRoomReaperOptions(
        pollingInterval,
        emptyRoomGrace,
        provisionTimeout,
        staleLiveTimeout,
        batchSize,
        lockTtl,
        maxRunDuration,
        statementTimeout,
        enabled,
        drain.enabled(),
        drain.pause(),
        clock,
        schedule,
        nextDue.coalesce(),
        nextDue.minGap());
  }

  /** The bound value, or the default when the property is not set. */
  static <T> T or(T bound, T defaultValue) {
    return bound != null ? bound : defaultValue;
  }
}
