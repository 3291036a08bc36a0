package pin.messenger.reaper.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import pin.messenger.reaper.app.cli.ReaperCli;

/** The worker's Spring Boot application; {@link ReaperCli} is the entry point. */
@SpringBootApplication
public class ReaperApplication {
  public static void main(String[] args) {
    int code = ReaperCli.run(args);
    if (code >= 0) {
      System.exit(code);
    }
    // A negative code means a long-running command: the loop's thread keeps the JVM alive until
    // SIGTERM.
  }
}
