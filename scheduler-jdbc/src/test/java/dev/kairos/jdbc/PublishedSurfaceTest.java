package dev.kairos.jdbc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The published surface of kairos-api, kairos-engine and kairos-jdbc is exactly the API: no public
 * or protected signature of a public type outside an {@code internal} package mentions an internal
 * type or a type of an implementation dependency, even as a type argument.
 */
class PublishedSurfaceTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages("dev.kairos");

  /** Packages whose types must never appear in the API: ours, and our dependencies'. */
  private static final DescribedPredicate<JavaClass> NOT_API =
      DescribedPredicate.describe(
          "an internal or implementation-dependency type",
          c ->
              c.getPackageName().contains(".internal")
                  || Stream.of(
                          "com.cronutils", "org.jdbi", "com.zaxxer", "org.h2", "org.postgresql")
                      .anyMatch(c.getPackageName()::startsWith));

  private static final DescribedPredicate<JavaClass> PUBLISHED =
      DescribedPredicate.describe(
          "published (public, outside internal packages)",
          c ->
              c.getModifiers().contains(JavaModifier.PUBLIC)
                  && !c.getPackageName().contains(".internal")
                  && isPublicAllTheWayOut(c));

  @Test
  void noPublishedSignatureMentionsANonApiType() {
    codeUnits()
        .that()
        .areDeclaredInClassesThat(PUBLISHED)
        .and(visible())
        .should(mentionNo())
        .allowEmptyShould(false)
        .check(MAIN);
  }

  @Test
  void noPublishedFieldHasANonApiType() {
    fields()
        .that()
        .areDeclaredInClassesThat(PUBLISHED)
        .and(
            DescribedPredicate.describe(
                "public or protected",
                (JavaField f) ->
                    f.getModifiers().contains(JavaModifier.PUBLIC)
                        || f.getModifiers().contains(JavaModifier.PROTECTED)))
        .should(
            new ArchCondition<JavaField>("not have " + NOT_API.getDescription()) {
              @Override
              public void check(JavaField f, ConditionEvents events) {
                for (JavaClass c : f.getType().getAllInvolvedRawTypes()) {
                  if (NOT_API.test(c)) {
                    events.add(SimpleConditionEvent.violated(f, f.getFullName() + " is a " + c));
                  }
                }
              }
            })
        .allowEmptyShould(true)
        .check(MAIN);
  }

  @Test
  void noPublishedTypeExtendsOrImplementsANonApiType() {
    classes()
        .that(PUBLISHED)
        .should(
            new ArchCondition<JavaClass>("not extend or implement " + NOT_API.getDescription()) {
              @Override
              public void check(JavaClass c, ConditionEvents events) {
                List<JavaType> supers = new ArrayList<>(c.getInterfaces());
                c.getSuperclass().ifPresent(supers::add);
                for (JavaType t : supers) {
                  for (JavaClass s : t.getAllInvolvedRawTypes()) {
                    if (NOT_API.test(s)) {
                      events.add(SimpleConditionEvent.violated(c, c.getName() + " extends " + s));
                    }
                  }
                }
              }
            })
        .check(MAIN);
  }

  @Test
  void theBuilderReturnsOnlyTheApiSchedulerType() {
    assertThat(
            MAIN.get(dev.kairos.engine.Kairos.Builder.class).getMethods().stream()
                .filter(m -> m.getModifiers().contains(JavaModifier.PUBLIC))
                .map(m -> m.getRawReturnType().getName())
                .filter(n -> !n.equals(dev.kairos.engine.Kairos.Builder.class.getName())))
        .containsExactly(dev.kairos.Scheduler.class.getName());
  }

  /**
   * JdbcStore is what applications touch: its public face is configuration and life cycle, and one
   * way to the SPI ({@code jobStore()}). The SPI's methods (upsert, due, claim, ...) must not come
   * back onto it, declared or inherited.
   */
  @Test
  void jdbcStoreShowsOnlyTheApplicationsMethods() {
    JavaClass store = MAIN.get(JdbcStore.class);
    assertThat(
            store.getMethods().stream()
                .filter(m -> m.getModifiers().contains(JavaModifier.PUBLIC))
                .filter(m -> !m.getModifiers().contains(JavaModifier.SYNTHETIC))
                .map(m -> m.getName())
                .distinct())
        .containsExactlyInAnyOrder(
            "h2", "of", "builder", "jobStore", "open", "close", "schemaVersion", "toString");
    assertThat(store.getRawInterfaces().stream().map(JavaClass::getName))
        .containsExactlyInAnyOrder(
            dev.kairos.spi.StoreSource.class.getName(), AutoCloseable.class.getName());
    assertThat(store.isAssignableTo(dev.kairos.spi.JobStore.class)).isFalse();
    assertThat(
            store.getConstructors().stream()
                .filter(c -> !c.getModifiers().contains(JavaModifier.PRIVATE)))
        .isEmpty();
    assertThat(
            store.getFields().stream()
                .filter(f -> f.getModifiers().contains(JavaModifier.PUBLIC))
                .map(JavaField::getName))
        .containsExactlyInAnyOrder(
            "DEFAULT_TABLE_PREFIX",
            "DEFAULT_HISTORY_PER_JOB",
            "DEFAULT_POOL_SIZE",
            "DEFAULT_START_MARK_DELAY");
  }

  /** The one way to the SPI is typed by the SPI, so callers never see the internal class. */
  @Test
  void jdbcStoreHandsOutTheSpiAsAClusterStore() throws Exception {
    assertThat(JdbcStore.class.getMethod("jobStore").getReturnType())
        .isEqualTo(dev.kairos.spi.ClusterStore.class);
  }

  private static DescribedPredicate<JavaCodeUnit> visible() {
    return DescribedPredicate.describe(
        "public or protected",
        u ->
            u.getModifiers().contains(JavaModifier.PUBLIC)
                || u.getModifiers().contains(JavaModifier.PROTECTED));
  }

  private static ArchCondition<JavaCodeUnit> mentionNo() {
    return new ArchCondition<>("mention no " + NOT_API.getDescription()) {
      @Override
      public void check(JavaCodeUnit u, ConditionEvents events) {
        List<JavaType> types = new ArrayList<>(u.getParameterTypes());
        types.add(u.getReturnType());
        u.getThrowsClause().getTypes().forEach(types::add);
        for (JavaType t : types) {
          for (JavaClass c : t.getAllInvolvedRawTypes()) {
            if (NOT_API.test(c)) {
              events.add(SimpleConditionEvent.violated(u, u.getFullName() + " mentions " + c));
            }
          }
        }
      }
    };
  }

  private static boolean isPublicAllTheWayOut(JavaClass c) {
    for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
      if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return true;
  }
}
