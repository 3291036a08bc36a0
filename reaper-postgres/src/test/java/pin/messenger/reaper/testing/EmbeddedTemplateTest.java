package pin.messenger.reaper.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The testkit's embedded servers start from copies of one template and share nothing. */
class EmbeddedTemplateTest {
  /** A JVM that starts a server from the template, prints its data directory and pid, and ends. */
  public static final class OneServer {
    public static void main(String[] args) throws Exception {
      EmbeddedPostgres pg = EmbeddedTemplate.start();
      try (Connection c = pg.getPostgresDatabase().getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT current_setting('data_directory')")) {
        rs.next();
        Path dir = Path.of(rs.getString(1));
        String postmaster = Files.readAllLines(dir.resolve("postmaster.pid")).get(0).strip();
        System.out.println("server " + dir + " " + postmaster);
      }
    }
  }

  @Test
  void a_jvm_that_exits_stops_its_server_before_deleting_the_copy() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p =
        new ProcessBuilder(
                List.of(
                    java, "-cp", System.getProperty("java.class.path"), OneServer.class.getName()))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    String[] last =
        out.lines()
            .filter(l -> l.startsWith("server "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no server line in:\n" + out))
            .split(" ");
    Path dir = Path.of(last[1]);
    long postmaster = Long.parseLong(last[2]);
    // Stopped while the JVM exited, not left to notice its directory is gone at its next lock-file
    // check (up to a minute): 10 s is the loaded machine's margin.
    ProcessHandle.of(postmaster)
        .ifPresent(
            h -> {
              try {
                h.onExit().get(10, TimeUnit.SECONDS);
              } catch (Exception stillRunningOrInterrupted) {
                // The assertion below says which.
              }
            });
    assertThat(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive).orElse(false))
        .as("postmaster %d of %s still running after its JVM exited", postmaster, dir)
        .isFalse();
    assertThat(dir).doesNotExist();
  }

  @Test
  void two_servers_from_the_template_share_no_data_and_leave_the_template_as_it_was()
      throws Exception {
    Path template = EmbeddedTemplate.template();
    assertThat(template).as("zonky's Linux x86_64 binaries archive on the class path").isNotNull();
    try (EmbeddedPostgres a = EmbeddedTemplate.start();
        EmbeddedPostgres b = EmbeddedTemplate.start()) {
      assertThat(a.getPort()).isNotEqualTo(b.getPort());
      try (Connection c = a.getPostgresDatabase().getConnection();
          Statement st = c.createStatement()) {
        st.execute("CREATE TABLE only_in_a (x int)");
      }
      try (Connection c = b.getPostgresDatabase().getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT to_regclass('public.only_in_a') IS NULL")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getBoolean(1)).as("b's cluster has no table a made").isTrue();
      }
    }
    assertThat(template.resolve("postgresql.conf")).exists();
    assertThat(template.resolve("postmaster.pid"))
        .as("no server ever runs on the template")
        .doesNotExist();
    try (var files = Files.list(template.resolve("base"))) {
      assertThat(files.count()).as("template1, template0 and postgres only").isEqualTo(3);
    }
  }
}
