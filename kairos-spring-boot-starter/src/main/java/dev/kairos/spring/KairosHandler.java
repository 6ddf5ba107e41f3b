package dev.kairos.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the handler of a {@link dev.kairos.Job} bean; without it, the bean name is the handler
 * name.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface KairosHandler {
  /**
   * The handler name that job specs refer to.
   *
   * @return the handler name
   */
  String value();
}
