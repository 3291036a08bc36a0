package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * The start-up floor of the startup section: a JVM that connects, runs one query and exits, with
 * nothing but the PostgreSQL driver on its class path. {@code run-once} with nothing due is
 * measured against it, on the same Java, in the same rounds.
 */
public final class JdbcFloor {
  private JdbcFloor() {}

  /** Arguments: the JDBC URL and the user. Prints the live rooms' count. */
  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0], args[1], "");
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'")) {
      rs.next();
      System.out.println(rs.getLong(1));
    }
  }
}
