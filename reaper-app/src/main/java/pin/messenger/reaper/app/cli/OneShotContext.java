package pin.messenger.reaper.app.cli;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The auto-configurations a command that runs once needs ({@code run-once}, {@code migrate}; the
 * commands that read or act have a context of their own, {@link CommandContext}): the pool, bound
 * from {@code spring.datasource.*}, and Flyway, bound from {@code spring.flyway.*} (made only where
 * migrations run: {@code migrate}, and {@code run-once} unless {@code
 * reaper.schema.migrate=false}). {@link ApplicationContexts#startOneShot} starts those commands
 * with auto-configuration otherwise off, because processing the auto-configurations is a large part
 * of a one-shot command's start-up CPU. Everything else such a command uses is the reaper's own
 * configuration (the relay binds {@code spring.kafka.*} itself, tracing is its own OpenTelemetry
 * set-up); what the worker's other auto-configurations make (the web server, Prometheus, the
 * actuator's endpoints) only {@code run} serves. Not a {@code @Configuration}: the worker's
 * component scan must not pick it up; it is added as a source only for those commands.
 */
@ImportAutoConfiguration({DataSourceAutoConfiguration.class, FlywayAutoConfiguration.class})
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
