package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/** {@code explain}'s row-lock answer: locked only when another transaction holds the row. */
class RowLockProbeTest extends DatabaseTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The probe's answer as {@code explain --json} writes it. */
  private Map<String, Object> rowLock(javax.sql.DataSource ds, java.util.UUID id) throws Exception {
    return JSON.convertValue(
        new RowLockProbe(ds).probe(id), new TypeReference<Map<String, Object>>() {});
  }

  @Test
  void a_free_row_is_reported_free() throws Exception {
    Rooms.Room room = Rooms.emptyActive(Instant.now().minusSeconds(600));
    rooms.insertAll(List.of(room));

    Map<String, Object> lock = rowLock(db.dataSource(), room.id);

    assertThat(lock).containsEntry("locked", false).containsEntry("heldBy", List.of());
  }

  @Test
  void a_row_held_by_another_transaction_is_reported_locked_with_its_holder() throws Exception {
    Rooms.Room room = Rooms.emptyActive(Instant.now().minusSeconds(600));
    rooms.insertAll(List.of(room));
    try (Connection holder = db.newConnection()) {
      holder.setAutoCommit(false);
      try (PreparedStatement ps = holder.prepareStatement(RowLockProbe.TRY_ROW_LOCK)) {
        ps.setObject(1, room.id);
        ps.executeQuery().close();
      }

      Map<String, Object> lock = rowLock(db.dataSource(), room.id);

      assertThat(lock).containsEntry("locked", true);
      assertThat((List<?>) lock.get("heldBy")).hasSize(1);
      holder.rollback();
    }
  }

  @Test
  void an_error_other_than_a_lock_timeout_is_reported_as_an_error_not_as_a_lock() throws Exception {
    Rooms.Room room = Rooms.emptyActive(Instant.now().minusSeconds(600));
    rooms.insertAll(List.of(room));
    try (Connection admin = db.newConnection();
        Statement st = admin.createStatement()) {
      st.execute("DROP ROLE IF EXISTS explain_reader");
      st.execute("CREATE ROLE explain_reader LOGIN PASSWORD 'r'");
      st.execute("GRANT USAGE ON SCHEMA messenger TO explain_reader");
      // SELECT only: FOR UPDATE needs UPDATE, so the lock attempt fails with permission denied.
      st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA messenger TO explain_reader");
    }
    try (HikariDataSource reader = new HikariDataSource()) {
      reader.setJdbcUrl(db.url());
      reader.setUsername("explain_reader");
      reader.setPassword("r");

      Map<String, Object> lock = rowLock(reader, room.id);

      assertThat(lock).containsEntry("locked", null);
      assertThat((String) lock.get("error")).contains("permission denied");
    }
  }
}
