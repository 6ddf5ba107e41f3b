package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import dev.kairos.JobState;
import dev.kairos.Scheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.servlet.WebMvcEndpointManagementContextConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/** The {@code kairos} endpoint over HTTP: a write with a field it does not know is a 400. */
class KairosEndpointWebTest {
  final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  KairosAutoConfiguration.class,
                  KairosActuatorAutoConfiguration.class,
                  JacksonAutoConfiguration.class,
                  HttpMessageConvertersAutoConfiguration.class,
                  WebMvcAutoConfiguration.class,
                  DispatcherServletAutoConfiguration.class,
                  EndpointAutoConfiguration.class,
                  WebEndpointAutoConfiguration.class,
                  WebMvcEndpointManagementContextConfiguration.class))
          .withPropertyValues(
              "kairos.store.type=memory", "management.endpoints.web.exposure.include=kairos")
          .withUserConfiguration(
              KairosAutoConfigurationTest.ReportsConfig.class,
              KairosAutoConfigurationTest.ClockConfig.class);

  private static MockHttpServletResponse write(MockMvc mvc, String body) throws Exception {
    return write(mvc, "/actuator/kairos/purge", body);
  }

  private static MockHttpServletResponse write(MockMvc mvc, String uri, String body)
      throws Exception {
    return mvc.perform(post(uri).contentType(MediaType.APPLICATION_JSON).content(body))
        .andReturn()
        .getResponse();
  }

  /**
   * An unknown field in the request body (a typo such as {@code acton}, or one too many) is refused
   * with a 400 naming it, leaving the job as it was; a body with only the known field acts.
   */
  @Test
  void unknownFieldInAWrite_is400NamingTheField() {
    runner.run(
        ctx -> {
          MockMvc mvc = MockMvcBuilders.webAppContextSetup(ctx).build();
          Scheduler scheduler = ctx.getBean(Scheduler.class);

          MockHttpServletResponse typo = write(mvc, "{\"acton\": \"pause\"}");
          assertThat(typo.getStatus()).isEqualTo(400);
          assertThat(typo.getErrorMessage())
              .isEqualTo("unknown field 'acton': the kairos endpoint takes action");

          MockHttpServletResponse extra =
              write(mvc, "{\"action\": \"pause\", \"force\": true, \"all\": 1}");
          assertThat(extra.getStatus()).isEqualTo(400);
          assertThat(extra.getErrorMessage())
              .isEqualTo("unknown fields 'all', 'force': the kairos endpoint takes action");
          assertThat(scheduler.job("purge").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

          MockHttpServletResponse ok = write(mvc, "{\"action\": \"pause\"}");
          assertThat(ok.getStatus()).isEqualTo(200);
          assertThat(ok.getContentAsString()).contains("\"done\":true");
          assertThat(scheduler.job("purge").orElseThrow().state()).isEqualTo(JobState.PAUSED);

          // An unknown query parameter is refused too; Boot's ?message=true switch passes.
          assertThat(write(mvc, "/actuator/kairos/purge?dryRun=1", "{\"action\": \"resume\"}"))
              .satisfies(r -> assertThat(r.getStatus()).isEqualTo(400))
              .satisfies(
                  r ->
                      assertThat(r.getErrorMessage())
                          .isEqualTo("unknown field 'dryRun': the kairos endpoint takes action"));
          assertThat(
                  write(mvc, "/actuator/kairos/purge?message=true", "{\"action\": \"resume\"}")
                      .getStatus())
              .isEqualTo(200);
          assertThat(scheduler.job("purge").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

          // A field name with a line break is named escaped: it must not forge a log line.
          assertThat(write(mvc, "{\"a\\nWARN forged\": 1}").getErrorMessage())
              .isEqualTo("unknown field 'a\\u000aWARN forged': the kairos endpoint takes action");
        });
  }

  /**
   * A refusal is logged only when asked ({@code spring.mvc.log-resolved-exception=true}, at WARN
   * with the reason), as the README's "Seeing a 400's reason" says.
   */
  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void refusalReason_isLoggedOnlyWhenAsked(CapturedOutput output) {
    runner.run(
        ctx -> {
          MockMvc mvc = MockMvcBuilders.webAppContextSetup(ctx).build();
          assertThat(write(mvc, "{\"acton\": \"pause\"}").getStatus()).isEqualTo(400);
          assertThat(output).doesNotContain("unknown field 'acton'");
        });
    runner
        .withPropertyValues("spring.mvc.log-resolved-exception=true")
        .run(
            ctx -> {
              MockMvc mvc = MockMvcBuilders.webAppContextSetup(ctx).build();
              assertThat(write(mvc, "{\"acton\": \"pause\"}").getStatus()).isEqualTo(400);
              assertThat(output).containsPattern("WARN .*unknown field 'acton'");
            });
  }
}
