package pin.messenger.reaper.blackbox;

import org.junit.platform.suite.api.ConfigurationParameter;
import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The black-box scenarios that spend most of their time waiting on the wall clock (a grace to pass,
 * an outage to last, a backoff to run out: about half a core each while they run) run side by side
 * in one test JVM, so their waits overlap with each other and the other test JVMs keep the cores
 * busy. Handed out one by one to the build's JVMs, whichever of them met would leave the cores idle
 * while they waited together.
 *
 * <p>Only this suite runs them in the whole suite: {@code reaper-it/pom.xml} excludes the classes
 * from failsafe's own scan ({@link WallClockScenariosTest} checks that the two lists agree; {@code
 * -Dit.test=NextDueScheduleIT} still runs one alone). Each class keeps its methods in one thread
 * and its own server, workers and ports; only the classes run concurrently.
 */
@Suite
@SelectClasses({
  DependencyOutagesIT.class,
  NextDueScheduleIT.class,
  StartWithoutDatabaseIT.class,
  DatabaseFaultsIT.class,
  BrokerOutageBlackBoxIT.class
})
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.enabled", value = "true")
@ConfigurationParameter(
    key = "junit.jupiter.execution.parallel.mode.default",
    value = "same_thread")
@ConfigurationParameter(
    key = "junit.jupiter.execution.parallel.mode.classes.default",
    value = "concurrent")
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.config.strategy", value = "fixed")
@ConfigurationParameter(
    key = "junit.jupiter.execution.parallel.config.fixed.parallelism",
    value = "5")
class WallClockScenariosIT {}
