package pin.messenger.reaper.core;

import java.util.concurrent.CancellationException;

/** A stop request, checked by the cycle before every storage call. */
@FunctionalInterface
public interface Cancellation {

  /** Never cancelled. */
  Cancellation NONE = () -> false;

  boolean isCancelled();

  default void throwIfCancelled() {
    if (isCancelled()) {
      throw new CancellationException("conference-room-reaper is stopping");
    }
  }
}
