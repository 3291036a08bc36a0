package pin.messenger.reaper.app.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.StoreException;

/** {@code run}'s start-up gate: waits out an unreachable database, never a wrong one. */
class DatabaseStartupTest {
  static SQLException refused() {
    return new SQLException(
        "Connection to 127.0.0.1:5432 refused",
        "08001",
        new ConnectException("Connection refused"));
  }

  @Test
  void an_unreachable_database_is_worth_waiting_for_a_wrong_one_is_not() {
    assertThat(DatabaseStartup.unavailable(refused())).isTrue();
    assertThat(
            DatabaseStartup.unavailable(
                new SQLTransientConnectionException(
                    "reaper - Connection is not available, request timed out after 5000ms",
                    "08001",
                    refused())))
        .as("the pool's timeout over a refused connection")
        .isTrue();
    assertThat(
            DatabaseStartup.unavailable(
                new SQLTransientConnectionException("reaper - Connection is not available")))
        .as("the pool's timeout while the first attempt still hangs")
        .isTrue();
    assertThat(
            DatabaseStartup.unavailable(
                new RuntimeException("flyway", new SQLException("starting up", "57P03"))))
        .as("the server is starting up")
        .isTrue();

    assertThat(
            DatabaseStartup.unavailable(
                new SQLTransientConnectionException(
                    "reaper - Connection is not available",
                    "28P01",
                    new SQLException("password authentication failed", "28P01"))))
        .as("authentication refused")
        .isFalse();
    assertThat(
            DatabaseStartup.unavailable(
                new StoreException(
                    "schema check failed",
                    new SQLException(
                        "relation \"messenger.call_recordings\" does not exist", "42P01"))))
        .as("a schema the worker cannot use")
        .isFalse();
    assertThat(DatabaseStartup.unavailable(new SQLException("permission denied", "42501")))
        .isFalse();
  }

  @Test
  void the_wait_between_attempts_doubles_to_its_cap() {
    assertThat(
            java.util.stream.IntStream.rangeClosed(1, 6)
                .mapToObj(DatabaseStartup::retryAfter)
                .map(Duration::toSeconds))
        .containsExactly(1L, 2L, 4L, 5L, 5L, 5L);
  }

  @Test
  void the_work_starts_once_after_the_database_answers() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger started = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    AtomicReference<Throwable> fatal = new AtomicReference<>();
    DatabaseStartup gate =
        new DatabaseStartup(
            () -> {
              if (attempts.incrementAndGet() < 3) {
                throw refused();
              }
            },
            () -> {
              started.incrementAndGet();
              start.countDown();
            },
            fatal::set,
            Clock.systemUTC());
    gate.begin();
    gate.contextStarted();
    // Two failed attempts: waits of 1 s and 2 s; a generous ceiling for a loaded machine.
    assertThat(start.await(60, TimeUnit.SECONDS)).isTrue();
    gate.close();
    assertThat(attempts.get()).isEqualTo(3);
    assertThat(started.get()).isEqualTo(1);
    assertThat(fatal.get()).isNull();
  }

  @Test
  void a_database_that_answers_no_ends_start_up_without_starting_anything() throws Exception {
    AtomicInteger started = new AtomicInteger();
    CountDownLatch failed = new CountDownLatch(1);
    AtomicReference<Throwable> fatal = new AtomicReference<>();
    StoreException wrong =
        new StoreException("schema check failed", new SQLException("no such table", "42P01"));
    DatabaseStartup gate =
        new DatabaseStartup(
            () -> {
              throw wrong;
            },
            started::incrementAndGet,
            e -> {
              fatal.set(e);
              failed.countDown();
            },
            Clock.systemUTC());
    gate.begin();
    gate.contextStarted();
    assertThat(failed.await(60, TimeUnit.SECONDS)).isTrue();
    gate.close();
    assertThat(fatal.get()).isSameAs(wrong);
    assertThat(started.get()).isZero();
  }

  @Test
  void a_stop_while_waiting_for_the_database_ends_the_wait_and_starts_nothing() throws Exception {
    AtomicInteger started = new AtomicInteger();
    CountDownLatch tried = new CountDownLatch(2);
    DatabaseStartup gate =
        new DatabaseStartup(
            () -> {
              tried.countDown();
              throw refused();
            },
            started::incrementAndGet,
            e -> {},
            Clock.systemUTC());
    gate.begin();
    assertThat(tried.await(60, TimeUnit.SECONDS)).isTrue();
    long t0 = System.nanoTime();
    gate.close();
    Duration stop = Duration.ofNanos(System.nanoTime() - t0);
    // The wait after the second attempt is 2 s; the stop interrupts it rather than waiting it out.
    assertThat(stop).isLessThan(Duration.ofMillis(1500));
    assertThat(started.get()).isZero();
    System.out.println("start-up gate: stop while waiting took " + stop.toMillis() + " ms");
  }

  @Test
  void a_prepared_database_starts_the_work_only_once_the_context_has_started() throws Exception {
    CountDownLatch prepared = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    DatabaseStartup gate =
        new DatabaseStartup(prepared::countDown, started::countDown, e -> {}, Clock.systemUTC());
    gate.begin();
    assertThat(prepared.await(60, TimeUnit.SECONDS)).isTrue();
    // Prepared while the context is still being built: the work waits for its start.
    assertThat(started.await(300, TimeUnit.MILLISECONDS)).isFalse();
    gate.contextStarted();
    assertThat(started.await(60, TimeUnit.SECONDS)).isTrue();
    gate.close();
  }

  @Test
  void a_wrong_database_found_before_the_context_started_is_reported_after_it() throws Exception {
    CountDownLatch tried = new CountDownLatch(1);
    CountDownLatch failed = new CountDownLatch(1);
    DatabaseStartup gate =
        new DatabaseStartup(
            () -> {
              tried.countDown();
              throw new SQLException("password authentication failed", "28P01");
            },
            () -> {},
            e -> failed.countDown(),
            Clock.systemUTC());
    gate.begin();
    assertThat(tried.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(failed.await(300, TimeUnit.MILLISECONDS)).isFalse();
    gate.contextStarted();
    assertThat(failed.await(60, TimeUnit.SECONDS)).isTrue();
    gate.close();
  }

  @Test
  void a_stop_before_the_context_started_starts_nothing() throws Exception {
    CountDownLatch prepared = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    DatabaseStartup gate =
        new DatabaseStartup(
            prepared::countDown, started::incrementAndGet, e -> {}, Clock.systemUTC());
    gate.begin();
    assertThat(prepared.await(60, TimeUnit.SECONDS)).isTrue();
    gate.close();
    gate.contextStarted();
    assertThat(started.get()).isZero();
  }
}
