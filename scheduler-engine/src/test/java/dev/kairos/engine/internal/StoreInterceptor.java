package dev.kairos.engine.internal;

import dev.kairos.spi.ClusterStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * For tests: a store that forwards every call to another and lets the test see, hold up or replace
 * each answer on its way back (a claim that pauses, a change feed that loses changes).
 */
@FunctionalInterface
interface StoreInterceptor {
  /**
   * Called after each forwarded call returned.
   *
   * @param method the called method's name
   * @param answer what the target returned
   * @return what the caller gets
   * @throws Exception thrown to the caller
   */
  Object after(String method, Object answer) throws Exception;

  /**
   * {@code target} seen through {@code interceptor}; an exception of the target reaches the caller
   * as thrown.
   */
  static ClusterStore wrap(ClusterStore target, StoreInterceptor interceptor) {
    return (ClusterStore)
        Proxy.newProxyInstance(
            ClusterStore.class.getClassLoader(),
            new Class<?>[] {ClusterStore.class},
            (proxy, method, args) -> {
              Object answer;
              try {
                answer = method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
              return interceptor.after(method.getName(), answer);
            });
  }
}
