package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.ClaimPosition;
import pin.messenger.reaper.core.Phase;

/** The drain cursor hands out windows in claim order and reads ahead only when it runs short. */
class DrainCursorTest {
  static final Instant AS_OF = Instant.parse("2026-12-02T10:00:00Z");

  final List<ClaimPosition> backlog = new ArrayList<>();
  int reads;

  DrainCursorTest() {
    for (int i = 0; i < 25; i++) {
      backlog.add(new ClaimPosition(AS_OF.minusSeconds(1000 - i), new UUID(0, i)));
    }
  }

  /** The statement's stand-in: positions after {@code after}, at most n, in claim order. */
  List<ClaimPosition> read(ClaimPosition after, int n) {
    reads++;
    List<ClaimPosition> out = new ArrayList<>();
    for (ClaimPosition p : backlog) {
      if (out.size() < n && p.orderKey().isAfter(after.orderKey())) {
        out.add(p);
      }
    }
    return out;
  }

  @Test
  void windows_follow_the_last_claimed_position_and_read_ahead_only_when_short() {
    DrainCursor cursor = new DrainCursor(Phase.EMPTY_ROOM, AS_OF);
    ClaimPosition after = backlog.get(2); // the first batch (a scan) claimed 0..2

    List<UUID> first = cursor.next(after, 4, 10, this::read);
    assertThat(first).containsExactly(id(3), id(4), id(5), id(6));
    assertThat(reads).isEqualTo(1);

    // The batch claimed 3 and 4 (5 held by another transaction, the claim was full at 2).
    List<UUID> second = cursor.next(backlog.get(4), 4, 10, this::read);
    assertThat(second).containsExactly(id(5), id(6), id(7), id(8));
    assertThat(reads).isEqualTo(1);

    // 8 claimed: positions up to it are dropped, the held 5 included; 9..12 are left (4).
    assertThat(cursor.next(backlog.get(8), 4, 10, this::read))
        .containsExactly(id(9), id(10), id(11), id(12));
    assertThat(reads).isEqualTo(1);

    // Fewer than a window left: read ahead past what was read, not again from the start.
    assertThat(cursor.next(backlog.get(10), 4, 10, this::read))
        .containsExactly(id(11), id(12), id(13), id(14));
    assertThat(reads).isEqualTo(2);
  }

  @Test
  void rows_the_last_batch_passed_over_are_offered_first_again() {
    DrainCursor cursor = new DrainCursor(Phase.EMPTY_ROOM, AS_OF);
    cursor.passedOver(List.of(id(1)));

    assertThat(cursor.next(backlog.get(2), 4, 10, this::read))
        .containsExactly(id(1), id(3), id(4), id(5));
    cursor.passedOver(List.of());
    assertThat(cursor.next(backlog.get(5), 4, 10, this::read))
        .containsExactly(id(6), id(7), id(8), id(9));
  }

  @Test
  void a_short_read_ahead_means_nothing_is_left_to_read() {
    DrainCursor cursor = new DrainCursor(Phase.EMPTY_ROOM, AS_OF);

    assertThat(cursor.next(backlog.get(19), 4, 10, this::read))
        .containsExactly(id(20), id(21), id(22), id(23));
    assertThat(cursor.next(backlog.get(23), 4, 10, this::read)).containsExactly(id(24));
    assertThat(cursor.next(backlog.get(24), 4, 10, this::read)).isEmpty();
    assertThat(reads).isEqualTo(1);
  }

  @Test
  void a_cursor_belongs_to_one_phase_and_one_cycle() {
    DrainCursor cursor = new DrainCursor(Phase.EMPTY_ROOM, AS_OF);

    assertThat(cursor.belongsTo(Phase.EMPTY_ROOM, AS_OF)).isTrue();
    assertThat(cursor.belongsTo(Phase.STALE_LIVE, AS_OF)).isFalse();
    assertThat(cursor.belongsTo(Phase.EMPTY_ROOM, AS_OF.plusSeconds(30))).isFalse();
  }

  @Test
  void a_row_both_passed_over_and_read_ahead_is_offered_once() {
    DrainCursor cursor = new DrainCursor(Phase.EMPTY_ROOM, AS_OF);
    cursor.passedOver(List.of(id(3)));

    assertThat(cursor.next(backlog.get(2), 4, 10, this::read))
        .containsExactly(id(3), id(4), id(5), id(6));
  }

  @Test
  void positions_tied_on_the_order_key_compare_their_ids_as_postgresql_does() {
    // PostgreSQL compares uuids as 16 unsigned bytes: 00… sorts before 80…, where UUID#compareTo
    // (signed longs) says the opposite.
    ClaimPosition low = new ClaimPosition(AS_OF, new UUID(0L, 1L));
    ClaimPosition high = new ClaimPosition(AS_OF, new UUID(Long.MIN_VALUE, 1L));

    assertThat(DrainCursor.ORDER.compare(low, high)).isNegative();
    assertThat(low.id().compareTo(high.id())).isPositive();
  }

  private static UUID id(int i) {
    return new UUID(0, i);
  }
}
