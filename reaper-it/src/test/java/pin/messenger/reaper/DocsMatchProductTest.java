package pin.messenger.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;

/**
 * What the design and deployment documents say about the product is what the product does: each
 * check reads the fact from the code or the shipped configuration, not from a second copy.
 */
class DocsMatchProductTest {

  private static String read(String path) throws IOException {
    return Files.readString(Path.of(path));
  }

  /** Every file of the deployment: manifests, their README, the image's files. */
  private static List<Path> deployFiles() throws IOException {
    try (Stream<Path> k8s = Files.walk(Path.of("ops/kubernetes"));
        Stream<Path> image = Files.walk(Path.of("ops/container"))) {
      return Stream.concat(k8s, image)
          .filter(Files::isRegularFile)
          .filter(p -> !p.toString().contains("node_modules"))
          .filter(p -> p.toString().matches(".*\\.(md|yaml|yml|sh)$|.*Containerfile$"))
          .toList();
    }
  }

  @Test
  void design_lists_every_cancellation_checkpoint() throws IOException {
    String design = read("docs/design.md");
    assertThat(Arrays.stream(Cancellation.Checkpoint.values()).map(c -> "`" + c.name() + "`"))
        .allSatisfy(name -> assertThat(design).contains(name));
  }

  @Test
  void design_names_the_kafka_logger_the_shipped_configuration_silences() throws IOException {
    Properties shipped = new Properties();
    try (InputStream in =
        DocsMatchProductTest.class.getClassLoader().getResourceAsStream("application.properties")) {
      assertThat(in).as("reaper-app's application.properties on the class path").isNotNull();
      shipped.load(in);
    }
    List<String> atError =
        shipped.stringPropertyNames().stream()
            .filter(k -> k.startsWith("logging.level.org.apache.kafka"))
            .filter(k -> shipped.getProperty(k).equals("ERROR"))
            .map(k -> k.substring("logging.level.".length()))
            .toList();
    assertThat(atError).isNotEmpty();
    String design = read("docs/design.md");
    atError.forEach(logger -> assertThat(design).contains("`" + logger + "`"));
    // A narrower logger named in the design would claim less than the configuration does.
    java.util.regex.Matcher named =
        java.util.regex.Pattern.compile("`(org\\.apache\\.kafka[\\w.]*)`").matcher(design);
    while (named.find()) {
      assertThat(atError).as("loggers set to ERROR").contains(named.group(1));
    }
  }

  @Test
  void deployment_docs_size_the_jvm_with_the_variable_the_image_reads() throws IOException {
    String containerfile = read("ops/container/Containerfile");
    assertThat(containerfile).contains("ENV JAVA_TOOL_OPTIONS=");
    assertThat(containerfile).doesNotContain("${REAPER_JAVA_OPTS");
    assertThat(read("ops/kubernetes/README.md")).contains("JAVA_TOOL_OPTIONS");
    for (Path file : deployFiles()) {
      String text = read(file.toString());
      // REAPER_JAVA_OPTS is bin/reaper's variable; a deployment file may only say the image ignores
      // it.
      for (String line : text.split("\n")) {
        if (line.contains("REAPER_JAVA_OPTS")) {
          assertThat(text).as("%s mentions REAPER_JAVA_OPTS", file).contains("never reads it");
        }
      }
    }
  }

  @Test
  void deployment_docs_describe_liveness_as_the_indicator_computes_it() throws IOException {
    for (Path file : deployFiles()) {
      String text = read(file.toString()).replaceAll("\\s*#\\s*", " ").replaceAll("\\s+", " ");
      assertThat(text)
          .as(file.toString())
          .doesNotContain("restarts the pods")
          .doesNotContain("no cycle has completed")
          .doesNotContain("no cycle has *completed*")
          .doesNotContain("bin/reaper prepare at build time");
    }
    String indicator =
        read(
            "reaper-app/src/main/java/pin/messenger/reaper/app/lifecycle/ReaperLivenessIndicator.java");
    assertThat(indicator).contains("lock-ttl + polling-interval");
    assertThat(read("ops/kubernetes/README.md").replaceAll("\\s+", " "))
        .contains("has started no cycle for `lock-ttl + polling-interval`");
    assertThat(read("ops/kubernetes/base/deployment.yaml").replaceAll("\\s*#\\s*", " "))
        .contains("has started no cycle for reaper.lock-ttl + reaper.polling-interval");
  }
}
