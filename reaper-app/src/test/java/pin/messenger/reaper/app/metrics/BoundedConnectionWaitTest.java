package pin.messenger.reaper.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * Readiness reacts to a database that refuses within the reading period plus a short bound, not
 * plus the pool's whole connection-timeout.
 */
class BoundedConnectionWaitTest {
  @Test
  void a_gauge_reading_against_a_refusing_database_fails_within_the_bound_not_the_pool_timeout()
      throws Exception {
    int refusing;
    try (ServerSocket s = new ServerSocket(0)) {
      refusing = s.getLocalPort(); // closed below: connections to it are refused
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + refusing + "/postgres");
    config.setUsername("postgres");
    config.setConnectionTimeout(10_000); // the cycles' wait: far longer than the bound
    config.setInitializationFailTimeout(-1); // as under run: started without a connection
    config.setPoolName("refusing");
    try (HikariDataSource pool = new HikariDataSource(config)) {
      BoundedConnectionWait bounded = new BoundedConnectionWait(pool);
      DatabaseGauges gauges =
          new DatabaseGauges(
              new PostgresReaperStore(bounded),
              bounded,
              ConferenceRoomReaperOptions.defaults(),
              Clock.systemUTC());
      long t0 = System.nanoTime();
      gauges.refresh();
      Duration reading = Duration.ofNanos(System.nanoTime() - t0);

      System.out.println(
          "gauge reading against a refusing database: " + reading.toMillis() + " ms");
      DatabaseGauges.Probe probe = gauges.probe();
      assertThat(probe).isNotNull();
      assertThat(probe.up()).isFalse();
      // The bound is 1 s; the pool's timeout 10 s. 5 s leaves room for a loaded machine and still
      // fails if the reading waited the pool's timeout.
      assertThat(reading).isLessThan(Duration.ofSeconds(5));
      assertThat(reading).isGreaterThanOrEqualTo(BoundedConnectionWait.BOUND.minusMillis(50));
    }
  }
}
