package pin.messenger.reaper.app.config;

import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import pin.messenger.reaper.app.lifecycle.DatabaseHealthIndicator;
import pin.messenger.reaper.app.lifecycle.DatabaseStartup;
import pin.messenger.reaper.app.lifecycle.ReaperLivenessIndicator;
import pin.messenger.reaper.app.lifecycle.ReaperLoopLifecycle;
import pin.messenger.reaper.app.lifecycle.RunnerHeartbeat;
import pin.messenger.reaper.app.metrics.BoundedConnectionWait;
import pin.messenger.reaper.app.metrics.DatabaseGauges;
import pin.messenger.reaper.app.metrics.ReaperMeters;
import pin.messenger.reaper.app.metrics.ScheduleMeters;
import pin.messenger.reaper.app.metrics.SloMeters;
import pin.messenger.reaper.core.ConferenceEndedListener;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperLoop;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.TraceContext;
import pin.messenger.reaper.delivery.Delivery;
import pin.messenger.reaper.schema.SchemaMigrations;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.store.SchemaVerifier;
import pin.messenger.reaper.telemetry.Failures;

/**
 * Wiring of the framework-free core: the reaper, its loop, its meters and probes (the options, the
 * clock and the store are {@link StoreConfiguration}'s).
 */
@Configuration(proxyBeanMethods = false)
public class ReaperConfiguration {
  /** The reaper's own Flyway history table and schema, the same settings the tests use. */
  @Bean
  FlywayConfigurationCustomizer reaperFlywayCustomizer() {
    return SchemaMigrations::configure;
  }

  /**
   * Migrates during the context's start for every command but {@code run}, whose migration waits
   * for the database in {@link DatabaseStartup} instead of ending the process.
   */
  @Bean
  FlywayMigrationStrategy reaperMigrationStrategy(Environment environment) {
    boolean deferred = DatabaseStartup.deferred(environment);
    return flyway -> {
      if (!deferred) {
        flyway.migrate();
      }
    };
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

  /**
   * The database as the gauges and readiness see it, read off the scrape path; its wait for a
   * pooled connection is bounded well under the reading period ({@link BoundedConnectionWait}).
   */
  @Bean(destroyMethod = "close")
  DatabaseGauges databaseGauges(
      DataSource dataSource, ConferenceRoomReaperOptions options, Clock clock) {
    DataSource bounded = new BoundedConnectionWait(dataSource);
    return new DatabaseGauges(new PostgresReaperStore(bounded), bounded, options, clock);
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
      Environment env,
      ObjectProvider<ReaperLoopLifecycle> loop) {
    // Only the periodic worker is expected to complete cycles; one-shot commands report UP.
    boolean periodic = DatabaseStartup.deferred(env);
    ConferenceRoomReaperOptions watched =
        periodic ? options : options.toBuilder().enabled(false).build();
    // The limit counts from the loop's start: waiting for the database at start-up is no wedge.
    Supplier<@Nullable Instant> loopStarted =
        () -> {
          ReaperLoopLifecycle l = loop.getIfAvailable();
          return l == null ? null : l.startedAt();
        };
    return new ReaperLivenessIndicator(meters::lastCycleStarted, loopStarted, watched, clock);
  }

  /** The schedule's gauges: the next wake-up and why. */
  @Bean
  ScheduleMeters scheduleMeters(
      MeterRegistry registry, ConferenceRoomReaperOptions options, Clock clock) {
    return new ScheduleMeters(registry, options, clock);
  }

  /**
   * This worker's row in the runners' table, refreshed each cycle off the cycle's thread; only for
   * the long-running commands (a one-shot command is not a runner).
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnExpression("'${reaper.command:run}' == 'run' or '${reaper.command:run}' == 'demo'")
  RunnerHeartbeat runnerHeartbeat(
      DataSource dataSource,
      ConferenceRoomReaperOptions options,
      ReaperProperties properties,
      Clock clock) {
    return new RunnerHeartbeat(
        new pin.messenger.reaper.store.Runners(new BoundedConnectionWait(dataSource)),
        options,
        properties.runners().retention(),
        clock);
  }

  /**
   * The periodic loop: it runs only for the long-running commands ({@code run}, {@code demo}),
   * decided here when the command runs rather than by a condition on the bean (the one-shot
   * commands get it idle).
   */
  @Bean
  ReaperLoopLifecycle reaperLoop(
      ConferenceRoomReaper reaper,
      Delivery delivery,
      DatabaseGauges gauges,
      ScheduleMeters scheduleMeters,
      Clock clock,
      Environment environment,
      DataSource dataSource,
      ReaperProperties properties,
      ObjectProvider<Flyway> flyway,
      ConfigurableApplicationContext context) {
    String command = environment.getProperty("reaper.command", "run");
    boolean periodic = command.equals("run") || command.equals("demo");
    Function<Runnable, DatabaseStartup> startup = null;
    if (DatabaseStartup.deferred(environment)) {
      boolean migrate = properties.schema().migrate();
      // Resolved here, on the thread building the context, not on the start-up thread.
      Flyway migrations = flyway.getIfAvailable();
      DatabaseStartup.Prepare prepare =
          () -> {
            // A connection first: an unreachable database fails here, whatever comes next.
            try (Connection unused = dataSource.getConnection()) {
              // Reached: the pool has a live connection.
            }
            if (migrate && migrations != null) {
              migrations.migrate();
            } else if (!migrate) {
              SchemaVerifier.verify(dataSource, OptionsBinding.of(environment).outbox());
            }
          };
      startup = work -> new DatabaseStartup(prepare, work, e -> exit(context, e), clock);
    }
    return new ReaperLoopLifecycle(
        periodic, new ReaperLoop(reaper, null, scheduleMeters), delivery, gauges, clock, startup);
  }

  /**
   * A database that answers but cannot be used as configured: {@code run} ends as it did when this
   * failed during start-up, with the reason logged and status 1 (on a thread of its own: the
   * context's close waits for the start-up thread).
   */
  private static void exit(ConfigurableApplicationContext context, Throwable failure) {
    Failures.report("run", failure);
    Thread exit =
        new Thread(
            () -> System.exit(SpringApplication.exit(context, () -> 1)), "reaper-startup-failed");
    exit.start();
  }
}
