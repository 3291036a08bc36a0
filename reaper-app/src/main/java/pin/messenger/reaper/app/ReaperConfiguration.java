package pin.messenger.reaper.app;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import pin.messenger.reaper.core.ConferenceEndedListener;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperLoop;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.TraceContext;
import pin.messenger.reaper.schema.SchemaMigrations;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.store.SchemaVerifier;

/**
 * Wiring of the framework-free core: options from {@code reaper.*}, the PostgreSQL store, the loop.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ReaperProperties.class)
public class ReaperConfiguration {
  private static final Logger log = LoggerFactory.getLogger(ReaperConfiguration.class);

  @Bean
  ConferenceRoomReaperOptions conferenceRoomReaperOptions(ReaperProperties properties) {
    ConferenceRoomReaperOptions options = properties.toOptions();
    log.atInfo()
        .addKeyValue("options", options.describe())
        .addKeyValue("schemaMigrate", properties.schema().migrate())
        .log("conference-room-reaper effective options: " + options.describe());
    return options;
  }

  /** socketTimeout and TCP keepalive on the pool's connections (a stalled network ends). */
  @Bean
  static NetworkBounds reaperNetworkBounds(
      org.springframework.beans.factory.ObjectProvider<ConferenceRoomReaperOptions> options) {
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

  /** The reaper's own Flyway history table and schema, the same settings the tests use. */
  @Bean
  FlywayConfigurationCustomizer reaperFlywayCustomizer() {
    return SchemaMigrations::configure;
  }

  @Bean
  PostgresReaperStore reaperStore(DataSource dataSource, ReaperProperties properties) {
    if (!properties.schema().migrate()) {
      SchemaVerifier.verify(dataSource);
    }
    return new PostgresReaperStore(dataSource);
  }

  /**
   * Republishes conference-ended as a Spring application event, after commit, for in-process
   * listeners.
   */
  @Bean
  ConferenceEndedListener springEventBridge(ApplicationEventPublisher publisher) {
    return publisher::publishEvent;
  }

  @Bean
  ConferenceRoomReaper conferenceRoomReaper(
      PostgresReaperStore store,
      ConferenceRoomReaperOptions options,
      Clock clock,
      List<ReaperObserver> observers,
      ObjectProvider<TraceContext> traceContext,
      List<ConferenceEndedListener> listeners) {
    return new ConferenceRoomReaper(
        store,
        options,
        clock,
        ReaperObserver.compose(observers),
        traceContext.getIfUnique(() -> TraceContext.NONE),
        listeners);
  }

  /** The database as the gauges and readiness see it, read off the scrape path. */
  @Bean(destroyMethod = "close")
  DatabaseGauges databaseGauges(
      PostgresReaperStore store,
      DataSource dataSource,
      ConferenceRoomReaperOptions options,
      Clock clock) {
    return new DatabaseGauges(store, dataSource, options, clock);
  }

  /** The cycles' meters, and the last cycle's start for liveness. */
  @Bean
  ReaperMeters reaperMeters(
      MeterRegistry registry,
      DatabaseGauges database,
      ConferenceRoomReaperOptions options,
      Clock clock) {
    return new ReaperMeters(registry, database, options, clock);
  }

  /** The SLO meters: close lateness on the database's clock, SLO verdicts, clock skew. */
  @Bean
  SloMeters sloMeters(MeterRegistry registry, ConferenceRoomReaperOptions options, Clock clock) {
    return new SloMeters(registry, options, clock);
  }

  /** Readiness (and health): the database, from memory (health group "readiness"). */
  @Bean
  DatabaseHealthIndicator databaseHealthIndicator(DatabaseGauges database, Clock clock) {
    return new DatabaseHealthIndicator(database, clock);
  }

  /**
   * Liveness: the loop has not started a cycle for lock-ttl + polling-interval while enabled → DOWN
   * (health group "liveness").
   */
  @Bean
  ReaperLivenessIndicator reaperHealthIndicator(
      ReaperMeters meters,
      ConferenceRoomReaperOptions options,
      Clock clock,
      org.springframework.core.env.Environment env) {
    // Only the periodic worker is expected to complete cycles; one-shot commands report UP.
    boolean periodic = "run".equals(env.getProperty("reaper.command", "run"));
    ConferenceRoomReaperOptions watched =
        periodic ? options : options.toBuilder().enabled(false).build();
    return new ReaperLivenessIndicator(meters::lastCycleStarted, watched, clock);
  }

  /** The schedule's gauges: the next wake-up and why. */
  @Bean
  ScheduleMeters scheduleMeters(
      MeterRegistry registry, ConferenceRoomReaperOptions options, Clock clock) {
    return new ScheduleMeters(registry, options, clock);
  }

  /** The periodic loop, only for the long-running commands ({@code run}, {@code demo}). */
  @Bean
  @ConditionalOnExpression("'${reaper.command:run}' == 'run' or '${reaper.command:run}' == 'demo'")
  ReaperLoopLifecycle reaperLoop(
      ConferenceRoomReaper reaper,
      Delivery delivery,
      DatabaseGauges gauges,
      ScheduleMeters scheduleMeters) {
    return new ReaperLoopLifecycle(new ReaperLoop(reaper, null, scheduleMeters), delivery, gauges);
  }
}
