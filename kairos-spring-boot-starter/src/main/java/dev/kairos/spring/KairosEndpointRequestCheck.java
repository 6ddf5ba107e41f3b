package dev.kairos.spring;

import dev.kairos.spi.JobRules;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Refuses a write to the {@code kairos} endpoint whose request names a field the operation does not
 * take (a typo such as {@code "acton"}, or an extra {@code "force"}): Actuator itself drops such
 * fields unseen. The refusal is an {@link InvalidEndpointRequestException}, an HTTP 400 whose
 * reason names the fields. The query parameters of Spring Boot's error page switches ({@code
 * message}, {@code trace}, {@code errors}, {@code path}: {@code
 * server.error.include-message=on-param} and its siblings) pass.
 */
final class KairosEndpointRequestCheck implements OperationInvokerAdvisor {
  private static final EndpointId KAIROS = EndpointId.of("kairos");

  /** Query parameters Spring Boot's error handling reads, so never the request's mistake. */
  private static final Set<String> ERROR_PAGE_SWITCHES =
      Set.of("message", "trace", "errors", "path");

  @Override
  public OperationInvoker apply(
      EndpointId endpointId,
      OperationType operationType,
      OperationParameters parameters,
      OperationInvoker invoker) {
    if (!KAIROS.equals(endpointId) || operationType != OperationType.WRITE) {
      return invoker;
    }
    Set<String> known =
        parameters.stream().map(OperationParameter::getName).collect(Collectors.toSet());
    List<String> fields =
        parameters.stream()
            .filter(p -> p.getAnnotation(Selector.class) == null)
            .map(OperationParameter::getName)
            .toList();
    return context -> {
      List<String> unknown =
          context.getArguments().keySet().stream()
              .filter(name -> !known.contains(name) && !ERROR_PAGE_SWITCHES.contains(name))
              .sorted()
              .map(JobRules::printable) // a line break in a name must not forge a log line
              .toList();
      if (!unknown.isEmpty()) {
        String reason =
            (unknown.size() == 1 ? "unknown field '" : "unknown fields '")
                + String.join("', '", unknown)
                + "': the kairos endpoint takes "
                + String.join(", ", fields);
        throw new InvalidEndpointRequestException(reason, reason);
      }
      return invoker.invoke(context);
    };
  }
}
