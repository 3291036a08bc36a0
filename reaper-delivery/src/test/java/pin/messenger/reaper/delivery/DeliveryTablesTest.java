package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.schema.DeliveryTables;
import pin.messenger.reaper.testing.DatabaseTest;

/**
 * The one definition of a pending delivery row is the predicate of the table's partial index, as
 * the migrations created it: a query that says "pending" the {@link DeliveryTables} way can use the
 * index, and a migration that changes one without the other fails here.
 */
class DeliveryTablesTest extends DatabaseTest {

  /** The partial index's predicate as PostgreSQL prints it, without parentheses and spaces. */
  static String indexPredicate(String index) {
    Object predicate =
        rooms
            .query(
                "SELECT pg_get_expr(i.indpred, i.indrelid) AS predicate FROM pg_index i"
                    + " JOIN pg_class c ON c.oid = i.indexrelid"
                    + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE n.nspname = 'messenger' AND c.relname = ?",
                index)
            .get(0)
            .get("predicate");
    return normalized(String.valueOf(predicate));
  }

  static String normalized(String sql) {
    return sql.replaceAll("[()\\s]", "").toLowerCase(Locale.ROOT);
  }

  @Test
  void pending_outbox_rows_are_the_rows_of_its_pending_index() {
    assertThat(indexPredicate("ix_integration_outbox_pending"))
        .isEqualTo(normalized(DeliveryTables.INTEGRATION_OUTBOX.pending()))
        .isEqualTo(indexPredicate("ix_integration_outbox_key_pending"));
  }

  @Test
  void pending_stop_requests_are_the_rows_of_their_pending_index() {
    assertThat(indexPredicate("ix_recorder_stop_requests_pending"))
        .isEqualTo(normalized(DeliveryTables.RECORDER_STOP_REQUESTS.pending()));
  }

  @Test
  void the_aliased_form_says_the_same() {
    assertThat(normalized(DeliveryTables.INTEGRATION_OUTBOX.pending("o")).replace("o.", ""))
        .isEqualTo(normalized(DeliveryTables.INTEGRATION_OUTBOX.pending()));
  }
}
