package pin.messenger.reaper;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Who may depend on whom, for every package of the worker's main code (test classes are not
 * imported; the testkit's are, it is a jar):
 *
 * <pre>
 * core       → nothing of ours          schema   → nothing of ours
 * store      → core, schema             delivery → core, schema
 * telemetry  → core
 * app        → core, schema, store, delivery, telemetry
 * dev, demo (the development launcher), bench (reaper-bench) → anything; nothing below depends on them
 * bench      nothing else depends on it (the launcher included)
 * testing    → anything; no main code depends on it
 * </pre>
 *
 * Within app, by role:
 *
 * <pre>
 * app (ReaperApplication), app.cli, app.cli.operator  the command line → config, lifecycle, metrics
 * app.config      configuration and wiring             → lifecycle, metrics
 * app.lifecycle   loop lifecycle, start-up, heartbeat, health → metrics
 * app.metrics     meters and gauges                    → none of app's
 * </pre>
 *
 * Plus: no cycle between any two of these packages (the layering allows some within a layer, e.g.
 * dev and demo, and says nothing about packages added below one of them); no Spring in core,
 * schema, store, delivery or demo; no JDBC in core; no class outside these packages, so a new
 * package has to be given its place here.
 */
@AnalyzeClasses(
    packages = "pin.messenger.reaper",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  private static final String CORE = "pin.messenger.reaper.core..";
  private static final String SCHEMA = "pin.messenger.reaper.schema..";
  private static final String STORE = "pin.messenger.reaper.store..";
  private static final String DELIVERY = "pin.messenger.reaper.delivery..";
  private static final String TELEMETRY = "pin.messenger.reaper.telemetry..";
  private static final String APP = "pin.messenger.reaper.app..";
  private static final String APP_ROOT = "pin.messenger.reaper.app";
  private static final String APP_CLI = "pin.messenger.reaper.app.cli..";
  private static final String APP_CONFIG = "pin.messenger.reaper.app.config..";
  private static final String APP_LIFECYCLE = "pin.messenger.reaper.app.lifecycle..";
  private static final String APP_METRICS = "pin.messenger.reaper.app.metrics..";
  private static final String DEV = "pin.messenger.reaper.dev..";
  private static final String DEMO = "pin.messenger.reaper.demo..";
  private static final String BENCH = "pin.messenger.reaper.bench..";
  private static final String TESTING = "pin.messenger.reaper.testing..";

  @ArchTest
  static final ArchRule each_package_depends_only_on_the_packages_below_it =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("core")
          .definedBy(CORE)
          .layer("schema")
          .definedBy(SCHEMA)
          .layer("store")
          .definedBy(STORE)
          .layer("delivery")
          .definedBy(DELIVERY)
          .layer("telemetry")
          .definedBy(TELEMETRY)
          .layer("app")
          .definedBy(APP)
          .layer("devtools")
          .definedBy(DEV, DEMO, BENCH)
          .layer("testing")
          .definedBy(TESTING)
          .whereLayer("core")
          .mayNotAccessAnyLayer()
          .whereLayer("schema")
          .mayNotAccessAnyLayer()
          .whereLayer("store")
          .mayOnlyAccessLayers("core", "schema")
          .whereLayer("delivery")
          .mayOnlyAccessLayers("core", "schema")
          .whereLayer("telemetry")
          .mayOnlyAccessLayers("core")
          .whereLayer("app")
          .mayOnlyAccessLayers("core", "schema", "store", "delivery", "telemetry")
          .whereLayer("devtools")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("testing")
          .mayNotBeAccessedByAnyLayer();

  @ArchTest
  static final ArchRule nothing_depends_on_the_benchmark =
      noClasses()
          .that()
          .resideOutsideOfPackage(BENCH)
          .should()
          .dependOnClassesThat()
          .resideInAPackage(BENCH);

  @ArchTest
  static final ArchRule app_packages_depend_by_role =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("command line")
          .definedBy(APP_ROOT, APP_CLI)
          .layer("config")
          .definedBy(APP_CONFIG)
          .layer("lifecycle")
          .definedBy(APP_LIFECYCLE)
          .layer("metrics")
          .definedBy(APP_METRICS)
          .whereLayer("command line")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("config")
          .mayOnlyBeAccessedByLayers("command line")
          .whereLayer("lifecycle")
          .mayOnlyBeAccessedByLayers("command line", "config")
          .whereLayer("metrics")
          .mayOnlyBeAccessedByLayers("command line", "config", "lifecycle");

  @ArchTest
  static final ArchRule no_cycle_between_the_packages_of_app =
      slices().matching("pin.messenger.reaper.app.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule no_package_cycles =
      slices().matching("pin.messenger.reaper.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule every_class_is_in_a_package_with_a_place_in_the_layering =
      classes()
          .that()
          .resideInAPackage("pin.messenger.reaper..")
          .should()
          .resideInAnyPackage(
              CORE, SCHEMA, STORE, DELIVERY, TELEMETRY, APP, DEV, DEMO, BENCH, TESTING);

  @ArchTest
  static final ArchRule spring_stays_at_the_edge =
      noClasses()
          .that()
          .resideInAnyPackage(CORE, SCHEMA, STORE, DELIVERY, DEMO)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("org.springframework..");

  @ArchTest
  static final ArchRule core_uses_no_jdbc =
      noClasses()
          .that()
          .resideInAPackage(CORE)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("java.sql..", "javax.sql..");
}
