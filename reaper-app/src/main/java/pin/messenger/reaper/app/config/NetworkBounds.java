package pin.messenger.reaper.app.config;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Properties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;

/**
 * Bounds on the database connection that a server-side statement timeout cannot give: when the
 * network stalls (packets dropped, no FIN or RST) a read waits for bytes the server may never send,
 * so the statement timeout never reaches the client. pgjdbc's {@code socketTimeout} (twice the
 * statement timeout: the server's own cancel has had its time by then; whole seconds, at least 1)
 * ends such a read, the connection is dropped and the batch rolls back (with the options' rule
 * {@code 4 × statement-timeout < lock-ttl}, a stalled statement ends before the server frees the
 * run lock); {@code tcpKeepAlive} lets the kernel find dead peers of idle connections. A value the
 * deployment sets (data-source properties, or the JDBC URL, which wins over both) is kept.
 */
final class NetworkBounds implements BeanPostProcessor {
  private final ObjectProvider<ConferenceRoomReaperOptions> options;

  NetworkBounds(ObjectProvider<ConferenceRoomReaperOptions> options) {
    this.options = options;
  }

  /** Seconds for pgjdbc's socketTimeout: twice the statement timeout, rounded up. */
  static long socketTimeoutSeconds(Duration statementTimeout) {
    Duration bound = statementTimeout.multipliedBy(2);
    return Math.max(1, bound.toSeconds() + (bound.toNanosPart() > 0 ? 1 : 0));
  }

  @Override
  public Object postProcessBeforeInitialization(Object bean, String beanName) {
    if (bean instanceof HikariDataSource hikari) {
      Properties set = hikari.getDataSourceProperties();
      if (!set.containsKey("socketTimeout")) {
        hikari.addDataSourceProperty(
            "socketTimeout",
            String.valueOf(socketTimeoutSeconds(options.getObject().statementTimeout())));
      }
      if (!set.containsKey("tcpKeepAlive")) {
        hikari.addDataSourceProperty("tcpKeepAlive", "true");
      }
    }
    return bean;
  }
}
