package pin.messenger.reaper.app.config;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import pin.messenger.reaper.app.metrics.PauseMeters;

/**
 * Wiring of the operators' pauses into the worker's meters (the commands themselves are in {@code
 * app.cli.operator}); the observer joins the others the reaper is built with.
 */
@Configuration(proxyBeanMethods = false)
public class OperatorConfiguration {

  @Bean
  PauseMeters pauseMeters(MeterRegistry registry) {
    return new PauseMeters(registry);
  }
}
