package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.yaml.snakeyaml.Yaml;

/**
 * The Kubernetes migration Job's mechanism (ops/kubernetes/migration/job.yaml), with the production
 * jar: {@code migrate} as the owner role, with the Job's {@code SPRING_FLYWAY_CALLBACK_LOCATIONS}
 * pointing at a folder holding the generated ConfigMap's {@code afterMigrate.sql}, leaves a schema
 * the least-privilege worker role can run a cycle on; without the callback it cannot.
 */
class MigrationJobBlackBoxIT {
  static final Path JOB = Path.of("ops/kubernetes/migration/job.yaml");
  static final Path GRANTS = Path.of("ops/kubernetes/migration/grants-configmap.yaml");

  static PostgresServer server;

  @BeforeAll
  static void start() throws Exception {
    server = PostgresServer.start();
    PGSimpleDataSource admin = new PGSimpleDataSource();
    admin.setUrl(server.jdbcUrl());
    admin.setUser("postgres");
    try (Connection c = admin.getConnection();
        Statement st = c.createStatement()) {
      st.execute(Files.readString(Path.of("ops/sql/least-privilege.sql")));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  static Map<String, String> as(String role) {
    Map<String, String> env = new HashMap<>(JarRunner.database(server));
    env.put("SPRING_DATASOURCE_USERNAME", role);
    return env;
  }

  /** The Job's value of an env variable, as the manifest has it. */
  @SuppressWarnings("unchecked")
  static String jobEnv(String name) throws Exception {
    Map<String, Object> job = new Yaml().load(Files.readString(JOB));
    Map<String, Object> spec =
        (Map<String, Object>) ((Map<String, Object>) job.get("spec")).get("template");
    List<Map<String, Object>> containers =
        (List<Map<String, Object>>) ((Map<String, Object>) spec.get("spec")).get("containers");
    for (Map<String, Object> e : (List<Map<String, Object>>) containers.get(0).get("env")) {
      if (name.equals(e.get("name"))) {
        return (String) e.get("value");
      }
    }
    throw new AssertionError(name + " not in " + JOB);
  }

  @Test
  void the_jobs_migrate_applies_the_worker_grants_after_every_migration() throws Exception {
    Map<String, String> worker = new HashMap<>(as("conference_reaper"));
    worker.put("REAPER_SCHEMA_MIGRATE", "false");

    // Without the callback: the schema is there, the worker role may not use it.
    JarRunner.Run plain = JarRunner.run(as("conference_reaper_owner"), "migrate");
    assertThat(plain.exit()).as(plain.stdout()).isZero();
    JarRunner.Run refused = JarRunner.run(worker, "run-once");
    assertThat(refused.exit()).as(refused.stdout()).isNotZero();
    // The tables are invisible to a role without grants: the start-up check names them missing.
    assertThat(refused.stdout())
        .contains("The messenger schema lacks what conference-room-reaper needs");

    // The Job's way: the ConfigMap's afterMigrate.sql in the folder its env variable names. Nothing
    // is
    // pending any more, and the callback runs all the same.
    Map<String, Object> configMap = new Yaml().load(Files.readString(GRANTS));
    @SuppressWarnings("unchecked")
    String afterMigrate = ((Map<String, String>) configMap.get("data")).get("afterMigrate.sql");
    String location = jobEnv("SPRING_FLYWAY_CALLBACK_LOCATIONS");
    assertThat(location).isEqualTo("filesystem:/grants");
    Path grants = Files.createTempDirectory("grants");
    Files.writeString(grants.resolve("afterMigrate.sql"), afterMigrate);
    Map<String, String> job = as("conference_reaper_owner");
    job.put("SPRING_FLYWAY_CALLBACK_LOCATIONS", location.replace("/grants", grants.toString()));

    JarRunner.Run migrate = JarRunner.run(job, "migrate");
    assertThat(migrate.exit()).as(migrate.stdout()).isZero();
    assertThat((Boolean) JsonPath.read(migrate.lastLine(), "$.migrated")).isTrue();

    JarRunner.Run cycle = JarRunner.run(worker, "run-once");
    assertThat(cycle.exit()).as(cycle.stdout()).isZero();
  }
}
