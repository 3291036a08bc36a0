package pin.messenger.reaper.app;

import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * The whole application context of a command that reads or acts and prints one answer ({@code
 * status}, {@code explain}, {@code audit} and the operator's actions): the pool (bound from {@code
 * spring.datasource.*} by Boot's own auto-configuration, with {@link NetworkBounds}), the options,
 * the clock and the store — made as {@link ReaperConfiguration} makes them, and nothing else. The
 * worker's component scan is not run for them: it would build the loop, delivery, gauges and
 * meters, which such a command never uses (their lifecycle made them even under lazy
 * initialisation). Not a {@code @Configuration}: the worker's component scan must not pick it up.
 */
@ImportAutoConfiguration(DataSourceAutoConfiguration.class)
@EnableConfigurationProperties(ReaperProperties.class)
class CommandContext {
  @Bean
  ConferenceRoomReaperOptions conferenceRoomReaperOptions(
      Environment environment, ReaperProperties properties) {
    return ReaperConfiguration.effectiveOptions(environment, properties);
  }

  @Bean
  static NetworkBounds reaperNetworkBounds(ObjectProvider<ConferenceRoomReaperOptions> options) {
    return new NetworkBounds(options);
  }

  @Bean
  @ConditionalOnMissingBean(Clock.class)
  Clock reaperClock() {
    return Clock.systemUTC();
  }

  @Bean
  PostgresReaperStore reaperStore(
      DataSource dataSource, ReaperProperties properties, Environment environment) {
    return ReaperConfiguration.store(dataSource, properties, environment);
  }
}
