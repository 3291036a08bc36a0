package pin.messenger.reaper;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Layering: the core is framework- and JDBC-free; the store and the demo are Spring-free; nothing
 * depends on app.
 */
@AnalyzeClasses(
    packages = "pin.messenger.reaper",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule core_depends_on_no_framework_no_jdbc_no_store_and_no_app =
      noClasses()
          .that()
          .resideInAPackage("pin.messenger.reaper.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.springframework..",
              "java.sql..",
              "javax.sql..",
              "pin.messenger.reaper.store..",
              "pin.messenger.reaper.app..");

  @ArchTest
  static final ArchRule store_depends_on_no_spring_and_no_app =
      noClasses()
          .that()
          .resideInAPackage("pin.messenger.reaper.store..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("org.springframework..", "pin.messenger.reaper.app..");

  @ArchTest
  static final ArchRule demo_depends_on_no_spring =
      noClasses()
          .that()
          .resideInAPackage("pin.messenger.reaper.demo..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("org.springframework..");
}
