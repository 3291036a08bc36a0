package pin.messenger.reaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.testing.DatabaseTest;

/**
 * The benchmark's data, on real PostgreSQL, judged by the real reaper: history is terminal and
 * grows to the size asked, live rooms are due in no phase, a backlog is exactly its size of due
 * empty rooms (with their rosters and every tenth recording) and is replaced, not added to, by the
 * next one.
 */
class BenchDataTest extends DatabaseTest {
  static final ConferenceRoomReaperOptions OPTIONS = ConferenceRoomReaperOptions.defaults();

  BenchData data() {
    return new BenchData(db.dataSource());
  }

  CycleResult cycle() {
    return BenchReport.reaper(db.dataSource(), OPTIONS).runOnce(Cancellation.NONE);
  }

  @Test
  void history_grows_to_the_size_asked_and_no_further_all_terminal_and_days_old() throws Exception {
    BenchData data = data();
    data.history(500);
    data.history(500);
    assertThat(data.count("true")).isEqualTo(500);
    data.history(800);

    assertThat(data.count("status = 'Ended' AND end_reason = 'Completed'")).isEqualTo(800);
    assertThat(data.count("ended_at > now() - interval '2 days'")).isZero();
    assertThat(cycle().emptyTimeout()).isZero();
  }

  @Test
  void live_rooms_are_occupied_and_due_in_no_phase() throws Exception {
    BenchData data = data();
    data.liveRooms(25);

    assertThat(data.count("status = 'Active' AND active_participant_count = 2")).isEqualTo(25);
    CycleResult r = BenchReport.reaper(db.dataSource(), OPTIONS).dryRun();
    assertThat(r.emptyTimeout() + r.provisionFailed() + r.staleTimeout()).isZero();
  }

  @Test
  void a_backlog_is_its_size_of_due_empty_rooms_and_the_next_one_replaces_it() throws Exception {
    BenchData data = data();
    data.liveRooms(5);
    data.backlog(30);

    assertThat(data.count("status = 'Active' AND active_participant_count = 0")).isEqualTo(30);
    assertThat(rooms.count("SELECT count(*) FROM messenger.conference_participants")).isEqualTo(90);
    assertThat(rooms.count("SELECT count(*) FROM messenger.call_recordings")).isEqualTo(3);
    CycleResult first = cycle();
    assertThat(first.emptyTimeout()).isEqualTo(30);
    assertThat(first.provisionFailed() + first.staleTimeout()).isZero();

    data.backlog(30);
    assertThat(data.count("true")).as("5 live rooms and the new backlog").isEqualTo(35);
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isZero();
    assertThat(cycle().emptyTimeout()).isEqualTo(30);
  }

  @Test
  void a_backlog_written_in_one_transaction_falls_due_whole_at_its_commit() throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      for (String sql : BenchData.backlogInOneTransaction(40)) {
        st.execute(sql);
      }
      assertThat(data().count("true")).as("before the commit").isZero();
      c.commit();
    }

    assertThat(data().count("status = 'Active' AND active_participant_count = 0")).isEqualTo(40);
    assertThat(rooms.count("SELECT count(*) FROM messenger.call_recordings")).isEqualTo(4);
    assertThat(cycle().emptyTimeout()).isEqualTo(40);
  }
}
