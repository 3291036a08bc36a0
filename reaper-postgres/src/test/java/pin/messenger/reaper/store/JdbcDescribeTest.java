package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Error messages an operator reads: the PgBouncer case names its fix. */
class JdbcDescribeTest {

  @Test
  void lost_prepared_statements_name_the_setting_that_fixes_them() {
    // The three errors seen through PgBouncer 1.18 in transaction mode without prepareThreshold=0.
    for (SQLException e :
        new SQLException[] {
          new SQLException("ERROR: prepared statement \"S_3\" does not exist", "26000"),
          new SQLException("ERROR: prepared statement \"S_1\" already exists", "42P05"),
          new SQLException(
              "ERROR: bind message supplies 3 parameters, but prepared statement \"S_2\" requires 0",
              "08P01")
        }) {
      assertThat(Jdbc.describe(e)).contains("prepareThreshold=0").contains("PgBouncer");
    }
  }

  @Test
  void other_errors_get_no_pooler_hint() {
    assertThat(Jdbc.describe(new SQLException("ERROR: relation \"x\" does not exist", "42P01")))
        .isEqualTo("[42P01] ERROR: relation \"x\" does not exist");
    assertThat(Jdbc.describe(new SQLException("ERROR: duplicate key value", "23505")))
        .doesNotContain("prepareThreshold");
  }
}
