package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.InvalidOptionsException;

/** The delivery options validate themselves, the lease against the step it protects included. */
class DeliveryOptionsTest {
  static final URI MEDIA = URI.create("http://media-recorder:8080/api/v1");

  static RelayOptions relay(Duration lease, Duration sendTimeout) {
    RelayOptions d = RelayOptions.defaults();
    return new RelayOptions(
        d.batchSize(),
        d.pollInterval(),
        lease,
        d.maxAttempts(),
        d.retryBase(),
        d.retryCap(),
        d.retention(),
        d.retentionBatch(),
        d.source(),
        sendTimeout,
        RelayOptions.DEFAULT_OUTAGE_LOG_INTERVAL);
  }

  static RecorderOptions recorder(Duration connect, Duration read, Duration lease) {
    RecorderOptions d = RecorderOptions.defaults(MEDIA);
    return new RecorderOptions(
        MEDIA,
        connect,
        read,
        d.batchSize(),
        d.pollInterval(),
        lease,
        d.maxAttempts(),
        d.retryBase(),
        d.retryCap(),
        RecorderOptions.Kind.HTTP,
        RecorderOptions.LiveKit.NONE,
        RecorderOptions.Jibri.NONE);
  }

  @Test
  void the_defaults_are_valid_and_their_statement_timeout_is_five_seconds() {
    assertThat(RelayOptions.defaults().sendTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(RelayOptions.defaults().statementTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(RecorderOptions.defaults(MEDIA).statementTimeout()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void the_statement_timeout_is_a_tenth_of_a_short_lease_and_never_below_a_millisecond() {
    assertThat(LeaseBudget.statementTimeout(Duration.ofMinutes(2)))
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(LeaseBudget.statementTimeout(Duration.ofSeconds(50)))
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(LeaseBudget.statementTimeout(Duration.ofSeconds(10)))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(LeaseBudget.statementTimeout(Duration.ofMillis(5))).isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void a_send_timeout_below_one_second_is_rejected_with_property_and_value() {
    assertThatThrownBy(() -> relay(Duration.ofMinutes(2), Duration.ofMillis(10)))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining("reaper.relay.send-timeout must be at least 1s but was PT0.01S");
    assertThatThrownBy(() -> relay(Duration.ofMinutes(2), null))
        .hasMessageContaining("reaper.relay.send-timeout must be at least 1s but was null");
  }

  @Test
  void a_relay_lease_must_exceed_the_send_timeout_plus_four_statement_timeouts() {
    // 60s lease: 5s statements, a step is send-timeout + 20s.
    assertThat(relay(Duration.ofSeconds(60), Duration.ofSeconds(39)).lease())
        .isEqualTo(Duration.ofSeconds(60));
    assertThatThrownBy(() -> relay(Duration.ofSeconds(60), Duration.ofSeconds(40)))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining(
            "reaper.relay.lease must exceed one delivery step: reaper.relay.send-timeout (PT40S)"
                + " + 4 statements × the statement timeout (PT5S) = PT1M, but was PT1M");
  }

  @Test
  void the_default_send_timeout_does_not_fit_a_thirty_second_relay_lease() {
    assertThatThrownBy(() -> relay(Duration.ofSeconds(30), RelayOptions.DEFAULT_SEND_TIMEOUT))
        .hasMessageContaining("reaper.relay.lease")
        .hasMessageContaining("but was PT30S");
  }

  @Test
  void a_recorder_lease_must_exceed_connect_plus_read_timeout_plus_four_statement_timeouts() {
    // 20s lease: 2s statements, a step is 2s + 5s + 8s = 15s.
    assertThat(recorder(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(20)))
        .isNotNull();
    // 10s lease: 1s statements, a step is 2s + 5s + 4s = 11s.
    assertThatThrownBy(
            () -> recorder(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10)))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessageContaining(
            "reaper.recorder.lease must exceed one delivery step: reaper.recorder.connect-timeout"
                + " (PT2S) + reaper.recorder.read-timeout (PT5S) + 4 statements × the statement"
                + " timeout (PT1S) = PT11S, but was PT10S");
  }

  @Test
  void every_violation_is_reported_at_once() {
    assertThatThrownBy(() -> relay(Duration.ZERO, Duration.ZERO))
        .isInstanceOfSatisfying(
            InvalidOptionsException.class,
            e ->
                assertThat(e.violations())
                    .anySatisfy(
                        v -> assertThat(v).startsWith("reaper.relay.lease must be positive"))
                    .anySatisfy(
                        v ->
                            assertThat(v)
                                .startsWith("reaper.relay.send-timeout must be at least")));
  }
}
