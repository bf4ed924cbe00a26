package dev.qinglong.app.governance;

import dev.qinglong.app.http.RefusalAudit;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The audit of management quota refusals, once per bucket and window, for the processes that have a
 * management quota; the exception handler asks it about each refusal. Closed at shutdown, which
 * writes the windows still open.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class RefusalAuditConfiguration {

  @Bean(destroyMethod = "close")
  RefusalAudit refusalAudit(ManagementQuotaProperties properties, MeterRegistry registry) {
    return new RefusalAudit(properties.toPolicy().window(), registry);
  }
}
