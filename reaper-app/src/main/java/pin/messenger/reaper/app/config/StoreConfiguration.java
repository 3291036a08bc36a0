package pin.messenger.reaper.app.config;

import java.time.Clock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import pin.messenger.reaper.app.cli.CommandContext;
import pin.messenger.reaper.app.lifecycle.DatabaseStartup;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.store.OutboxOptions;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.store.SchemaVerifier;

/**
 * What every command builds on: the reaper's options from {@code reaper.*} (checked, and logged
 * once as in force), the clock, the bounds on the pool's connections and the PostgreSQL store. The
 * worker's component scan picks it up; {@link CommandContext} imports it alone.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ReaperProperties.class)
public class StoreConfiguration {
  private static final Logger log = LoggerFactory.getLogger(StoreConfiguration.class);

  @Bean
  ConferenceRoomReaperOptions conferenceRoomReaperOptions(
      Environment environment, ReaperProperties properties) {
    ConferenceRoomReaperOptions options = OptionsBinding.of(environment).reaper();
    log.atInfo()
        .addKeyValue("options", options.describe())
        .addKeyValue("schemaMigrate", properties.schema().migrate())
        .log("conference-room-reaper effective options: " + options.describe());
    return options;
  }

  /** socketTimeout and TCP keepalive on the pool's connections (a stalled network ends). */
  @Bean
  static NetworkBounds reaperNetworkBounds(ObjectProvider<ConferenceRoomReaperOptions> options) {
    return new NetworkBounds(options);
  }

  /**
   * The worker's clock: each cycle's moment under {@code reaper.clock=system}, and what the skew is
   * measured against under either setting. A test replaces it (e.g. {@code Clock.offset}) by
   * registering its own {@link Clock} before the context refreshes.
   */
  @Bean
  @ConditionalOnMissingBean(Clock.class)
  Clock reaperClock() {
    return Clock.systemUTC();
  }

  /**
   * The store; with {@code reaper.schema.migrate=false} the schema is verified first (under run, by
   * {@link DatabaseStartup} once the database answers).
   */
  @Bean
  PostgresReaperStore reaperStore(
      DataSource dataSource, ReaperProperties properties, Environment environment) {
    OptionsBinding options = OptionsBinding.of(environment);
    OutboxOptions outbox = options.outbox();
    if (!properties.schema().migrate() && !DatabaseStartup.deferred(environment)) {
      SchemaVerifier.verify(dataSource, outbox);
    }
    // The CloudEvents source is the relay's option in both modes: in debezium mode it is written
    // into each row, where the connector reads it as a header.
    return outbox.relays()
        ? new PostgresReaperStore(dataSource)
        : new PostgresReaperStore(dataSource, outbox, options.relay().source());
  }
}
