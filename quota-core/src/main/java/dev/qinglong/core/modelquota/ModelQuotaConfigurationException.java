package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.QingLongException;

/**
 * The Project's configuration cannot be enforced, so admission fails closed: the Project quota
 * limits cost but the model's invocation policy has no cost cap (unknown cost would get through).
 * Nothing was reserved. An operator fixes it by giving the model policy a {@code maxCostMicros} (or
 * dropping the Project cost limit).
 */
public final class ModelQuotaConfigurationException extends QingLongException {
  public ModelQuotaConfigurationException(String message) {
    super(message);
  }
}
