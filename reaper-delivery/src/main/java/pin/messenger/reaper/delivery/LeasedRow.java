package pin.messenger.reaper.delivery;

import java.util.UUID;

/** A row a leased delivery claimed: its id and the failed attempts counted so far. */
interface LeasedRow {
  UUID id();

  int attempts();
}
