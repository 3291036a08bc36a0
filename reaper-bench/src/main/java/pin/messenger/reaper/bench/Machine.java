package pin.messenger.reaper.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** What Linux says about the machine and the bench's children, and the bench's scratch folders. */
final class Machine {
  private Machine() {}

  /** The kB fields of /proc/<pid>/status (VmRSS, RssAnon, ...). */
  static Map<String, Long> procStatus(long pid) throws IOException {
    Map<String, Long> fields = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      String[] parts = line.split("\\s+");
      if (parts.length == 3 && parts[2].equals("kB")) {
        fields.put(parts[0].replace(":", ""), Long.parseLong(parts[1]));
      }
    }
    return fields;
  }

  /** The 1, 5 and 15 minute load averages, or {@code n/a}. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "n/a";
    }
  }

  /** Deletes a folder and what is in it, without following links. */
  static void deleteTree(Path p) throws IOException {
    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
      try (DirectoryStream<Path> children = Files.newDirectoryStream(p)) {
        for (Path c : children) {
          deleteTree(c);
        }
      }
    }
    Files.deleteIfExists(p);
  }
}
