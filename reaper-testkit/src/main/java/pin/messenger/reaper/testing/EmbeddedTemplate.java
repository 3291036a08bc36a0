package pin.messenger.reaper.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The embedded PostgreSQL of a test JVM, started from a copy of an initialised data directory
 * instead of a fresh {@code initdb}, because copying a clean cluster costs a fraction of the CPU of
 * the {@code initdb} every test JVM that touches storage would otherwise run. The template is made
 * once per machine, user and binaries (keyed by where zonky's binaries archive was found, which
 * names its version), under a file lock, built beside its final place and moved there in one step,
 * so a test JVM never sees half of one. Where the binaries archive is not found by that name (an
 * other platform), {@link #start()} runs zonky's own {@code initdb}.
 */
public final class EmbeddedTemplate {
  private static final String ARCHIVE = "postgres-linux-x86_64.txz";

  private EmbeddedTemplate() {}

  /**
   * A started embedded server on a data directory of its own, stopped when the JVM exits and its
   * directory deleted after.
   */
  public static EmbeddedPostgres start() throws IOException {
    // Our hook stops the server and only then deletes its copy: zonky's own hook, run beside it
    // (the JVM starts all hooks at once), would let ours see the server closed while it still
    // shut down, and a postmaster whose directory is gone lingers until it next checks its lock
    // file (seen: a build's process group not empty 10 s after Maven exited).
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setRegisterShutdownHook(false);
    Path template = template();
    @Nullable Path copy = template == null ? null : copyOf(template);
    if (copy != null) {
      builder.setDataDirectory(copy).setCleanDataDirectory(false);
    }
    EmbeddedPostgres pg = builder.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    pg.close();
                  } catch (IOException ignored) {
                    // The JVM is exiting.
                  }
                  if (copy != null) {
                    deleteTree(copy);
                  }
                },
                "reaper-test-pg-stop"));
    return pg;
  }

  /** The template's data directory, made now if missing; null where it cannot be keyed. */
  public static @Nullable Path template() throws IOException {
    URL archive = EmbeddedPostgres.class.getClassLoader().getResource(ARCHIVE);
    if (archive == null) {
      return null;
    }
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
    String key = sha256(archive.toString()).substring(0, 16);
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Path root = tmp.resolve("reaper-test-pg-template-" + user + "-" + key);
    Path data = root.resolve("data");
    if (Files.exists(data.resolve("postgresql.conf"))) {
      return data;
    }
    Path lock = root.resolveSibling(root.getFileName() + ".lock");
    try (FileChannel channel =
            FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      if (Files.exists(data.resolve("postgresql.conf"))) {
        return data; // another test JVM made it while this one waited
      }
      Path building = Files.createTempDirectory(tmp, "reaper-test-pg-template-building");
      // initdb, a clean start and stop: what the copies start from.
      EmbeddedPostgres.builder()
          .setDataDirectory(building.resolve("data"))
          .setCleanDataDirectory(false)
          .setRegisterShutdownHook(false)
          .start()
          .close();
      Files.deleteIfExists(building.resolve("data").resolve("epg-lock"));
      if (Files.exists(root)) {
        deleteTree(root); // a template something else emptied (a temporary-folder cleaner)
      }
      Files.move(building, root, StandardCopyOption.ATOMIC_MOVE);
    }
    return data;
  }

  /** A new temporary directory holding a copy of {@code template}. */
  private static Path copyOf(Path template) throws IOException {
    Path copy = Files.createTempDirectory("reaper-test-pg");
    copyTree(template, copy);
    return copy;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.walkFileTree(
        from,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            Path target = to.resolve(from.relativize(dir).toString());
            if (!Files.exists(target)) {
              Files.copy(dir, target, StandardCopyOption.COPY_ATTRIBUTES);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.copy(
                file,
                to.resolve(from.relativize(file).toString()),
                StandardCopyOption.COPY_ATTRIBUTES);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  private static void deleteTree(Path root) {
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.delete(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, @Nullable IOException e)
                throws IOException {
              Files.delete(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException | UncheckedIOException ignored) {
      // The JVM is exiting; a leftover directory in the temporary folder is harmless.
    }
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)))
          .toLowerCase(Locale.ROOT);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
