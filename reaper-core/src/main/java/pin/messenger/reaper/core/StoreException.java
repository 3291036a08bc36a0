package pin.messenger.reaper.core;

/**
 * An infrastructure failure of the store (connection, timeout, server error): the batch is rolled
 * back.
 */
public class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }
}
