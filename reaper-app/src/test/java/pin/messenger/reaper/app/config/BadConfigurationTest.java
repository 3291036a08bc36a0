package pin.messenger.reaper.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import pin.messenger.reaper.app.ReaperApplication;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * Scenario 6: invalid option sets are refused at start-up, each with a message naming the property.
 */
class BadConfigurationTest {
  static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create();
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @ParameterizedTest(name = "{0} is refused naming {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--reaper.batch-size=0                                  | reaper.batch-size",
        "--reaper.batch-size=10001                              | reaper.batch-size",
        "--reaper.batch-size=lots                               | reaper.batch-size",
        "--reaper.polling-interval=0s                           | reaper.polling-interval",
        "--reaper.polling-interval=-5s                          | reaper.polling-interval",
        "--reaper.polling-interval=soon                         | reaper.polling-interval",
        "--reaper.empty-room-grace=0                            | reaper.empty-room-grace",
        "--reaper.empty-room-grace=5h                           | reaper.empty-room-grace",
        "--reaper.provision-timeout=-1m                         | reaper.provision-timeout",
        "--reaper.stale-live-timeout=0s                         | reaper.stale-live-timeout",
        "--reaper.stale-live-timeout=60s                        | reaper.empty-room-grace",
        "--reaper.lock-ttl=10s                                  | reaper.max-run-duration",
        "--reaper.lock-ttl=0s                                   | reaper.lock-ttl",
        "--reaper.max-run-duration=2m                           | reaper.max-run-duration",
        "--reaper.statement-timeout=45s                         | reaper.statement-timeout",
        "--reaper.statement-timeout=0ms                         | reaper.statement-timeout",
        "--reaper.drain.pause=-1s                               | reaper.drain.pause",
        "--reaper.enabled=perhaps                               | reaper.enabled",
        "--reaper.clock=ntp                                     | reaper.clock",
        "--reaper.outbox.mode=kafka-connect                     | reaper.outbox.mode",
        "--reaper.relay.batch-size=0                            | reaper.relay.batch-size",
        "--reaper.relay.max-attempts=0                          | reaper.relay.max-attempts",
        "--reaper.relay.retry-cap=100ms                         | reaper.relay.retry-cap",
        "--reaper.relay.send-timeout=10ms                       | reaper.relay.send-timeout",
        "--reaper.relay.source=                                 | reaper.relay.source",
        "--reaper.recorder.base-url=ftp://media/recorder        | reaper.recorder.base-url",
        "--reaper.recorder.base-url=media-recorder:8080         | reaper.recorder.base-url",
        "--reaper.recorder.read-timeout=0s                      | reaper.recorder.read-timeout",
        "--reaper.recorder.max-attempts=0                       | reaper.recorder.max-attempts",
        "--reaper.recorder.lease=1s                             | reaper.recorder.lease",
      })
  void invalid_option_is_refused_at_start_naming_the_property(String option, String property) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--spring.datasource.url=" + db.url(),
                "--spring.datasource.username=" + db.user(),
                "--spring.datasource.password=" + db.password(),
                "--reaper.command=run-once"));
    args.add(option.strip());

    Throwable failure =
        catchThrowable(
            () ->
                new SpringApplicationBuilder(ReaperApplication.class)
                    .web(WebApplicationType.NONE)
                    .run(args.toArray(String[]::new))
                    .close());

    assertThat(failure).as("start-up with %s", option).isNotNull();
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    assertThat(messages.toString()).contains(property);
  }
}
