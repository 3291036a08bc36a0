package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.testing.DatabaseTest;

/**
 * The runner-limit section's generator on real PostgreSQL: each room is written at the instant it
 * falls due (its reference time exactly one window back), the mix follows the room's running number
 * (1 in 10 Provisioning, 1 in 10 stale, the rest empty), and the real reaper closes every one of
 * them in its phase.
 */
class OrphanGeneratorTest extends DatabaseTest {
  static final ConferenceRoomReaperOptions OPTIONS =
      ConferenceRoomReaperOptions.defaults().toBuilder().batchSize(1_000).build();

  @Test
  void rooms_fall_due_as_they_are_written_in_the_stated_mix_and_the_reaper_closes_each()
      throws Exception {
    BenchData data = new BenchData(db.dataSource());
    data.exec("DROP TABLE IF EXISTS bench_limit_rooms");
    OrphanGenerator.createTable(data);
    long written;
    try (OrphanGenerator generator = new OrphanGenerator(db.dataSource(), OPTIONS)) {
      generator.rate(300);
      generator.start();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (generator.written() < 123 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      generator.close();
      written = generator.written();
      assertThat(generator.failures()).isZero();
    }
    assertThat(written).isGreaterThanOrEqualTo(123);
    long provisioning = (written + 9) / 10; // running numbers 0, 10, 20, …
    long stale = (written - 1 + 9) / 10; // 1, 11, 21, …

    assertThat(kind("provision-timeout")).isEqualTo(provisioning);
    assertThat(kind("stale-live")).isEqualTo(stale);
    assertThat(kind("empty-room")).isEqualTo(written - provisioning - stale);
    assertThat(data.count("true")).isEqualTo(written);
    // Due exactly at the write: the reference time lies one window before due_at.
    assertThat(
            rooms.count(
                "SELECT count(*) FROM bench_limit_rooms b JOIN messenger.conference_sessions s USING (id)"
                    + " WHERE b.due_at <> CASE b.kind"
                    + " WHEN 'empty-room' THEN s.last_activity_at + interval '90 seconds'"
                    + " WHEN 'provision-timeout' THEN s.created_at + interval '2 minutes'"
                    + " ELSE s.last_activity_at + interval '4 hours' END"))
        .isZero();
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.conference_participants p"
                    + " JOIN bench_limit_rooms b ON b.id = p.conference_id WHERE b.kind = 'empty-room'"))
        .isEqualTo(3 * kind("empty-room"));

    CycleResult r = BenchReport.reaper(db.dataSource(), OPTIONS).runOnce(Cancellation.NONE);
    assertThat(r.emptyTimeout()).isEqualTo(kind("empty-room"));
    assertThat(r.provisionFailed()).isEqualTo(provisioning);
    assertThat(r.staleTimeout()).isEqualTo(stale);
  }

  private static long kind(String kind) {
    return rooms.count("SELECT count(*) FROM bench_limit_rooms WHERE kind = ?", kind);
  }
}
