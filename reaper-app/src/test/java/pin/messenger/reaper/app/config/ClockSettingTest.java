package pin.messenger.reaper.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.app.ReaperApplication;
import pin.messenger.reaper.app.metrics.ReaperMeters;
import pin.messenger.reaper.app.metrics.SloMeters;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ClockSource;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.StoreException;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * {@code reaper.clock} through the application: the worker's {@link Clock} bean replaced by one two
 * minutes ahead of the database, the setting bound from the command line, the skew gauge.
 */
class ClockSettingTest {
  static TestDatabase db;
  static Rooms rooms;

  @BeforeAll
  static void database() {
    db = TestDatabase.create();
    rooms = new Rooms(db.dataSource());
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @BeforeEach
  void empty() {
    rooms.truncateAll();
  }

  static ConfigurableApplicationContext start(Clock workerClock, String clockSetting) {
    return new SpringApplicationBuilder(ReaperApplication.class)
        .web(WebApplicationType.NONE)
        // The worker's clock bean gives way to one registered before the context refreshes.
        .initializers(ctx -> ctx.getBeanFactory().registerSingleton("skewedClock", workerClock))
        .run(
            "--spring.datasource.url=" + db.url(),
            "--spring.datasource.username=" + db.user(),
            "--spring.datasource.password=" + db.password(),
            "--reaper.command=run-once",
            "--reaper.clock=" + clockSetting);
  }

  @ParameterizedTest(name = "worker +2m, reaper.clock={0}: room empty for 30 s closed = {1}")
  @CsvSource({"system, true, SYSTEM", "database, false, DATABASE", "DATABASE, false, DATABASE"})
  void a_worker_two_minutes_ahead_closes_a_room_early_only_with_the_system_clock(
      String setting, boolean closedEarly, ClockSource bound) {
    Instant databaseNow = (Instant) rooms.query("SELECT clock_timestamp() AS t").get(0).get("t");
    Rooms.Room room = rooms.insert(Rooms.emptyActive(databaseNow.minusSeconds(30)));
    Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(2));

    try (ConfigurableApplicationContext ctx = start(ahead, setting)) {
      assertThat(ctx.getBean(Clock.class)).isSameAs(ahead);
      assertThat(ctx.getBean(ConferenceRoomReaperOptions.class).clock()).isEqualTo(bound);
      MeterRegistry registry = ctx.getBean(MeterRegistry.class);
      assertThat(registry.get(SloMeters.CLOCK_SKEW).gauge().value()).isNaN();

      ctx.getBean(ConferenceRoomReaper.class).runOnce(Cancellation.NONE);

      assertThat(rooms.status(room.id)).isEqualTo(closedEarly ? "Ended" : "Active");
      assertThat(registry.get(SloMeters.CLOCK_SKEW).gauge().value()).isCloseTo(-120.0, within(1.0));
    }
  }

  @Test
  void a_cycle_that_fails_before_its_start_is_reported_still_counts_for_liveness() {
    // With reaper.clock=database a cycle that cannot read the database's clock fails before it
    // reports a start; liveness must not read a database outage as a wedged loop.
    try (ConfigurableApplicationContext ctx = start(Clock.systemUTC(), "database")) {
      ReaperMeters meters = ctx.getBean(ReaperMeters.class);
      assertThat(meters.lastCycleStarted()).isNull();

      meters.cycleFailed(
          "job-1",
          new StoreException(
              "could not read the database's clock", new java.sql.SQLException("refused")));

      assertThat(meters.lastCycleStarted()).isNotNull();
    }
  }

  @Test
  void close_lateness_is_measured_on_the_database_clock_whatever_the_worker_clock_says() {
    Instant databaseNow = (Instant) rooms.query("SELECT clock_timestamp() AS t").get(0).get("t");
    Duration grace = ConferenceRoomReaperOptions.DEFAULT_EMPTY_ROOM_GRACE;
    // Due 125 s ago by the database's clock: a worker 2 minutes behind closes it only now, and
    // by its own clock that is 5 s after the window, on time.
    rooms.insert(Rooms.emptyActive(databaseNow.minus(grace).minusSeconds(125)));
    Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-2));

    try (ConfigurableApplicationContext ctx = start(behind, "system")) {
      ctx.getBean(ConferenceRoomReaper.class).runOnce(Cancellation.NONE);

      Instant databaseAfter =
          (Instant) rooms.query("SELECT clock_timestamp() AS t").get(0).get("t");
      MeterRegistry registry = ctx.getBean(MeterRegistry.class);
      double lateness =
          registry
              .get(SloMeters.CLOSE_LATENESS)
              .tag("phase", "empty-room")
              .timer()
              .max(java.util.concurrent.TimeUnit.SECONDS);
      // 125 s plus however long the context took to start (seconds on a loaded machine), and far
      // from the 5 s the worker's own clock would give.
      double elapsed = Duration.between(databaseNow, databaseAfter).toNanos() / 1e9;
      assertThat(lateness).isBetween(125.0 - 0.5, 125.0 + elapsed + 0.5);
      assertThat(
              registry
                  .get(SloMeters.SLO_CLOSES)
                  .tags("phase", "empty-room", "result", "late")
                  .counter()
                  .count())
          .isEqualTo(1.0);
    }
  }
}
