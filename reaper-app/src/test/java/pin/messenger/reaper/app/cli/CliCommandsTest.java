package pin.messenger.reaper.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The command names dispatch knows, and the shortcut that skips parsing, hold for every command.
 */
class CliCommandsTest {
  @Test
  void every_command_is_found_by_the_name_its_annotation_gives_it() {
    for (CliCommand c : CliCommands.all()) {
      CliCommand found = CliCommands.named(CliCommands.name(c));
      assertThat(found).as(CliCommands.name(c)).isNotNull();
      assertThat(found.getClass()).isEqualTo(c.getClass());
    }
    assertThat(CliCommands.named("demo")).isNull();
  }

  @Test
  void no_commands_own_option_has_a_dotted_name_so_dotted_ones_always_pass_through() {
    List<String> spring = List.of("--reaper.batch-size=5", "--spring.datasource.url=jdbc:x");
    for (CliCommand c : CliCommands.all()) {
      CommandLine line = new CommandLine(c);
      for (OptionSpec o : line.getCommandSpec().options()) {
        for (String name : o.names()) {
          assertThat(name).as(CliCommands.name(c)).doesNotContain(".");
        }
      }
      line.parseArgs(spring.toArray(String[]::new));
      assertThat(((CommandBase) c).rest).as(CliCommands.name(c)).isEqualTo(spring);
    }
  }

  @Test
  void only_dotted_name_value_options_skip_parsing() {
    assertThat(CommandBase.onlySpringOptions(List.of())).isTrue();
    assertThat(CommandBase.onlySpringOptions(List.of("--reaper.batch-size=5", "--x.y="))).isTrue();
    assertThat(CommandBase.onlySpringOptions(List.of("--dry-run"))).isFalse();
    assertThat(CommandBase.onlySpringOptions(List.of("--since=2h"))).isFalse();
    assertThat(CommandBase.onlySpringOptions(List.of("--debug=true"))).isFalse();
    assertThat(CommandBase.onlySpringOptions(List.of("--reaper.x"))).isFalse();
    assertThat(CommandBase.onlySpringOptions(List.of("stray.arg=1"))).isFalse();
    assertThat(CommandBase.onlySpringOptions(List.of("--help"))).isFalse();
  }
}
