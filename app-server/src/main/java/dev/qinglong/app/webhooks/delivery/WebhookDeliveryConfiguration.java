package dev.qinglong.app.webhooks.delivery;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.webhooks.WebhookStore;
import dev.qinglong.core.webhooks.WebhookTargets;
import dev.qinglong.gateway.worker.WorkerLease;
import dev.qinglong.gateway.worker.WorkerState;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Webhook delivery on the publication worker (roles {@code all} and {@code worker}). It runs only
 * while the worker's lease says this process is the active worker: it hooks on that lease rather
 * than taking a lock of its own, so exactly the process that publishes also delivers. Delivery
 * stops before the worker releases its lock (this bean depends on it, so it is closed first).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WORKER})
public class WebhookDeliveryConfiguration {
  private static final Logger log = LoggerFactory.getLogger(WebhookDeliveryConfiguration.class);

  /** Registered in every worker process, so the series read 0 before any delivery. */
  @Bean
  WebhookDeliveryMetrics webhookDeliveryMetrics(MeterRegistry registry) {
    return new WebhookDeliveryMetrics(registry);
  }

  @Bean(destroyMethod = "close")
  WebhookDelivery webhookDelivery(
      OpenedStore.Worker worker,
      WorkerLease publicationWorkerLease,
      ObjectProvider<WebhookTargets> registrationTargets,
      Environment environment,
      WebhookDeliveryProperties properties,
      WebhookDeliveryMetrics metrics) {
    Optional<WebhookStore> store = worker.webhooks();
    if (store.isEmpty()) {
      // The backend already logged why (one webhooks.disabled line); deliveries wait in the
      // database.
      log.debug("webhook delivery off: the worker has no webhook store");
      return new WebhookDelivery(null, null);
    }
    if (!properties.enabled()) {
      log.warn(
          "webhook.delivery-disabled: qinglong.webhooks.delivery.enabled=false; this process"
              + " delivers nothing, deliveries wait in the database");
      return new WebhookDelivery(null, null);
    }
    // The same rules as at registration (the webhook routes' bean where this process has one).
    WebhookTargets targets =
        registrationTargets.getIfAvailable(
            () ->
                new WebhookTargets(
                    environment.getProperty(
                        "qinglong.webhooks.allow-insecure-targets", Boolean.class, false),
                    InetAddress::getAllByName));
    Clock clock = Clock.systemUTC();
    WebhookSender sender = new WebhookSender();
    WebhookAttempt attempt =
        new WebhookAttempt(
            store.get(),
            new TargetGuard(targets, InetAddress::getAllByName),
            sender,
            properties.schedule(),
            metrics,
            clock);
    // A delivery waiting for its busy endpoint must start early enough to finish within its lease.
    DeliveryDispatcher dispatcher =
        new DeliveryDispatcher(
            properties.limits(),
            properties.lease().minus(WebhookSender.TOTAL_TIMEOUT).dividedBy(2),
            attempt);
    WebhookDeliveryLoop loop =
        new WebhookDeliveryLoop(
            store.get(),
            () -> publicationWorkerLease.state() == WorkerState.ACTIVE,
            dispatcher,
            metrics,
            clock,
            properties.lease(),
            WebhookDeliveryLoop.DEFAULT_TICK);
    loop.start();
    return new WebhookDelivery(loop, sender);
  }
}
