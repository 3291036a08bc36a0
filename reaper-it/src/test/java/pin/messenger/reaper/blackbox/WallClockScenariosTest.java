package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.platform.suite.api.SelectClasses;

/**
 * {@link WallClockScenariosIT}'s classes are exactly those reaper-it's pom keeps out of failsafe's
 * own scan: a class in the suite only would run twice, a class excluded only would never run in the
 * test command.
 */
class WallClockScenariosTest {
  private static final Pattern EXCLUDE =
      Pattern.compile("<exclude>\\*\\*/([A-Za-z0-9]+)\\.java</exclude>");

  @Test
  void the_suite_and_the_poms_excludes_name_the_same_classes() throws Exception {
    String pom = Files.readString(Path.of("reaper-it/pom.xml"));
    Matcher m = EXCLUDE.matcher(pom);
    Stream.Builder<String> excluded = Stream.builder();
    while (m.find()) {
      excluded.add(m.group(1));
    }
    Class<?>[] selected = WallClockScenariosIT.class.getAnnotation(SelectClasses.class).value();

    assertThat(excluded.build().toList())
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(selected).map(Class::getSimpleName).toList())
        .isNotEmpty();
  }
}
