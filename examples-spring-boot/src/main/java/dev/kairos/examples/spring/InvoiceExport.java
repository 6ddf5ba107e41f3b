package dev.kairos.examples.spring;

import dev.kairos.Job;
import dev.kairos.JobContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** A {@code Job} bean: its bean name, {@code invoiceExport}, is its handler name. */
@Component
public class InvoiceExport implements Job {
  private static final Logger log = LoggerFactory.getLogger(InvoiceExport.class);

  @Override
  public void run(JobContext context) {
    log.info("exporting invoices, options {}", context.data().orElse("{}"));
  }
}
