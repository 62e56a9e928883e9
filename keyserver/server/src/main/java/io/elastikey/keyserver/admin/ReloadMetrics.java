// ReloadMetrics -- the key server's watched files as metrics: reloads taken, reloads refused, when the policy loaded.
package io.elastikey.keyserver.admin;

import io.elastikey.keyserver.authz.LivePolicy;
import io.elastikey.keyserver.tls.ReloadingSslContext;

/**
 * A refused reload leaves the old policy or certificate in force and logs one ERROR line; a line scrolls away, so
 * the refusals are also counted for an alert ({@code elastikey_policy_reload_failures_total > 0}), and the policy's
 * load time shows how old the policy in force is.
 */
public final class ReloadMetrics {
    private ReloadMetrics() {
    }

    public static void bind(KeyServerMetrics metrics, LivePolicy policy, ReloadingSslContext tls) {
        metrics.counter("elastikey.policy.reloads", "Policy file changes that replaced the policy in force", policy,
                LivePolicy::reloads);
        metrics.counter("elastikey.policy.reload.failures", "Policy file changes refused (errors, no rule, "
                + "unreadable): the previous policy stayed in force", policy, LivePolicy::failedReloads);
        metrics.gauge("elastikey.policy.loaded.timestamp.seconds", "When the policy in force was loaded, seconds "
                + "since the epoch", policy, p -> p.loadedAtMillis() / 1000.0);
        metrics.counter("elastikey.tls.reload.failures", "TLS file changes that did not load (missing, unreadable "
                + "or broken certificate, key, CA bundle or CRL): the previous context stayed in use", tls,
                ReloadingSslContext::failures);
    }
}
