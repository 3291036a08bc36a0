package pin.messenger.reaper.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The one auto-configuration a command that reads or acts once needs ({@code status}, {@code
 * explain}, {@code audit} and the operator's actions): the pool, bound from {@code
 * spring.datasource.*} as for every other command. {@link CliContext#inApplication} starts those
 * commands with auto-configuration otherwise off and every bean lazy, so only the pool, the
 * options, the clock and the store are made: in a JFR profile of {@code status}, processing the
 * auto-configurations took ~37 % of the main thread, and without them {@code status} takes 0.68×
 * the CPU, the actions 0.78–0.84× (docs/benchmarks.md, "The test command"). Not a
 * {@code @Configuration}: the worker's component scan must not pick it up; it is added as a source
 * only for those commands.
 */
@ImportAutoConfiguration(DataSourceAutoConfiguration.class)
class OneShotContext {
  /**
   * Meters nobody scrapes (the command exits before any export): the loop's beans, which the
   * context's lifecycle makes even for these commands, record into it.
   */
  @Bean
  MeterRegistry oneShotMeters() {
    return new SimpleMeterRegistry();
  }
}
