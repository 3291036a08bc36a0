package pin.messenger.reaper.core;

/**
 * Receives the in-process {@link ConferenceEndedEvent} after the batch that raised it has
 * committed. A listener that throws is logged and never undoes the commit.
 */
@FunctionalInterface
public interface ConferenceEndedListener {
  void onConferenceEnded(ConferenceEndedEvent event);
}
