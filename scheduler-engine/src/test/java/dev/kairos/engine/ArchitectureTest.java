package dev.kairos.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module boundaries and the time seam, enforced. */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.kairos");

  @Test
  void api_doesNotSeeTheEngine() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.kairos", "dev.kairos.spi")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.kairos.engine..", "dev.kairos.jdbc..", "com.cronutils..", "org.slf4j..")
        .check(MAIN);
  }

  @Test
  void mainCode_readsAndWaitsForTimeOnlyThroughTheTimeSource() {
    noClasses()
        .that()
        .doNotHaveSimpleName("SystemTimeSource")
        .and()
        .doNotHaveSimpleName("TimeSource")
        .and()
        .doNotHaveSimpleName("JobRecord") // firstVersion(): a unique stamp, not a time that decides
        .should()
        .callMethod(java.time.Instant.class, "now")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(Thread.class, "sleep", long.class)
        .orShould()
        .callMethod(java.time.Clock.class, "systemUTC")
        .check(MAIN);
  }

  @Test
  void noCronUtilsTypeInAPublicSignature() {
    noMethods()
        .that()
        .arePublic()
        .and()
        .areDeclaredInClassesThat()
        .arePublic()
        .should()
        .haveRawReturnType(
            com.tngtech.archunit.base.DescribedPredicate.describe(
                "a cron-utils type", c -> c.getPackageName().startsWith("com.cronutils")))
        .check(MAIN);
  }
}
