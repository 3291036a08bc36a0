package pin.messenger.reaper.testing;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the test classes that work on one fresh, migrated database: created once per class,
 * emptied before every test, closed after the class. (Test classes run one after another, so the
 * static fields are the running class's.)
 */
public abstract class DatabaseTest {
  protected static TestDatabase db;
  protected static Rooms rooms;

  @BeforeAll
  static void createDatabase() {
    db = TestDatabase.create();
    rooms = new Rooms(db.dataSource());
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  @BeforeEach
  void emptyTables() {
    rooms.truncateAll();
  }
}
