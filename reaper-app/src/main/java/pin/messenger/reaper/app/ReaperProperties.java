package pin.messenger.reaper.app;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;

/**
 * Binding of {@code reaper.*} (relaxed: {@code REAPER_BATCH_SIZE} works). Defaults are the core's
 * constants; validation is the core options' own, so a bad value fails start-up naming the
 * property.
 */
@ConfigurationProperties(prefix = "reaper")
public record ReaperProperties(
    @DefaultValue("30s") Duration pollingInterval,
    @DefaultValue("90s") Duration emptyRoomGrace,
    @DefaultValue("2m") Duration provisionTimeout,
    @DefaultValue("4h") Duration staleLiveTimeout,
    @DefaultValue("100") int batchSize,
    @DefaultValue("2m") Duration lockTtl,
    @DefaultValue("30s") Duration maxRunDuration,
    @DefaultValue("10s") Duration statementTimeout,
    @DefaultValue("true") boolean enabled,
    @DefaultValue Drain drain,
    @DefaultValue Schema schema,
    @DefaultValue Embedded embedded) {

  /** Drain mode (beyond the spec, off by default). */
  public record Drain(
      @DefaultValue("false") boolean enabled, @DefaultValue("50ms") Duration pause) {}

  /**
   * {@code reaper.schema.migrate}: apply the reaper's migrations at start, or only verify the
   * schema.
   */
  public record Schema(@DefaultValue("true") boolean migrate) {}

  /**
   * The embedded PostgreSQL used when no {@code spring.datasource.url} is set.
   *
   * @param dataDir where its data is kept between runs
   */
  public record Embedded(
      @DefaultValue("true") boolean enabled, @DefaultValue(".reaper/pgdata") Path dataDir) {}

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
        drain.pause());
  }
}
