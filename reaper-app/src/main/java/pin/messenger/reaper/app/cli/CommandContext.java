package pin.messenger.reaper.app.cli;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Import;
import pin.messenger.reaper.app.config.StoreConfiguration;

/**
 * The whole application context of a command that reads or acts and prints one answer ({@code
 * status}, {@code explain}, {@code audit} and the operator's actions): the pool, bound from {@code
 * spring.datasource.*} by Boot's own auto-configuration, and {@link StoreConfiguration}'s options,
 * clock, connection bounds and store — the worker's own definitions, and nothing else. The worker's
 * component scan is not run for them: it would build the loop, delivery, gauges and meters, which
 * such a command never uses (their lifecycle made them even under lazy initialisation). Not a
 * {@code @Configuration}: the worker's component scan must not pick it up.
 */
@ImportAutoConfiguration(DataSourceAutoConfiguration.class)
@Import(StoreConfiguration.class)
public class CommandContext {}
