package pin.messenger.reaper.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import pin.messenger.reaper.core.InvalidOptionsException;
import pin.messenger.reaper.core.StoreException;

class FailuresTest {
  @Test
  void an_invalid_option_under_bean_wrappers_is_the_message() {
    InvalidOptionsException options = new InvalidOptionsException(List.of("reaper.x was bad"));
    Throwable chain =
        new BeanCreationException(
            "delivery",
            "Error creating bean with name 'delivery': " + options.getMessage(),
            options);

    assertThat(Failures.message(chain))
        .isEqualTo("Invalid conference-room-reaper configuration: reaper.x was bad");
  }

  @Test
  void our_own_failure_wins_over_the_driver_exception_under_it() {
    SQLException driver = new SQLException("ERROR: relation \"x\" does not exist", "42P01");
    Throwable chain =
        new RuntimeException(
            new StoreException("claim empty-room failed: " + driver.getMessage(), driver));

    assertThat(Failures.message(chain)).startsWith("claim empty-room failed: ERROR: relation");
  }

  @Test
  void without_ours_the_outermost_message_that_is_not_a_wrapper() {
    SQLException refused =
        new SQLException(
            "Connection to 127.0.0.1:1 refused.",
            "08001",
            new ConnectException("Connection refused"));
    Throwable chain =
        new BeanCreationException(
            "dataSource",
            "Error creating bean with name 'dataSource'",
            new IllegalStateException(
                "Failed to initialize pool: " + refused.getMessage(), refused));

    assertThat(Failures.message(chain)).isEqualTo("Connection to 127.0.0.1:1 refused.");
  }

  @Test
  void a_failure_without_any_message_is_named_by_its_type() {
    assertThat(Failures.message(new IllegalStateException()))
        .isEqualTo("java.lang.IllegalStateException");
  }
}
