package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Function;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The bench's embedded PostgreSQL as the sections that need a database of their own see it: its
 * URLs, unpooled connections, and databases made, copied and dropped through {@code postgres}.
 */
final class BenchServer {
  private final Function<String, String> jdbcUrl;

  BenchServer(Function<String, String> jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
  }

  String url(String database) {
    return jdbcUrl.apply(database);
  }

  /** Unpooled: no connection outlives its use, so the database can be copied or dropped. */
  DataSource dataSource(String database) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url(database));
    return ds;
  }

  /** An empty database of that name, dropped first if it was there. */
  void recreate(String database) throws SQLException {
    admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    admin("CREATE DATABASE " + database);
  }

  /** A copy of {@code template} (which no connection may hold open), under {@code name}. */
  void copy(String name, String template) throws SQLException {
    // FORCE: the backend of a worker just stopped may not have noticed its client is gone yet.
    admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    admin("CREATE DATABASE " + name + " TEMPLATE " + template);
  }

  void admin(String sql) throws SQLException {
    try (Connection c = dataSource("postgres").getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
