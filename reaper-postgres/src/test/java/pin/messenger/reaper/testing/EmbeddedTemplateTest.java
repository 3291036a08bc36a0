package pin.messenger.reaper.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The testkit's embedded servers start from copies of one template and share nothing. */
class EmbeddedTemplateTest {
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
