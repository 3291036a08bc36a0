package pin.messenger.reaper.app.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The options of the application only ({@code reaper.schema.*}, {@code reaper.runners.*}): the core
 * never migrates and has no runners' table, so their defaults are here. The core's and delivery's
 * options are bound straight into their own records by {@link OptionsBinding}.
 */
@ConfigurationProperties(prefix = "reaper")
public record ReaperProperties(@DefaultValue Schema schema, @DefaultValue Runners runners) {

  /**
   * {@code reaper.schema.migrate}: apply the reaper's migrations at start, or only verify the
   * schema.
   */
  public record Schema(@DefaultValue("true") boolean migrate) {}

  /**
   * {@code reaper.runners.retention}: rows of runners not seen for longer than this (stopped or
   * gone silent) are deleted by the live runners; one day by default.
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
}
