package pin.messenger.reaper.app;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wiring of the operators' pauses into the worker's meters (the commands themselves are {@link
 * OperatorCommand}); the observer joins the others the reaper is built with.
 */
@Configuration(proxyBeanMethods = false)
public class OperatorConfiguration {

  @Bean
  PauseMeters pauseMeters(MeterRegistry registry) {
    return new PauseMeters(registry);
  }
}
