package io.elastikey.keyserver.ski;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.audit.AuditEvent;
import io.elastikey.keyserver.audit.AuditLog;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;

/** Counts every answer in the metrics and enqueues its audit line. */
public final class AuditingRequestLog implements RequestLog {
    private final KeyServerMetrics metrics;
    private final AuditLog audit;

    public AuditingRequestLog(KeyServerMetrics metrics, AuditLog audit) {
        this.metrics = metrics;
        this.audit = audit;
    }

    @Override
    public void answered(Caller caller, SkiMethod method, String spki, SkiError error, long nanos) {
        metrics.request(method, error, nanos);
        audit.record(AuditEvent.now(caller.identity(), caller.remote(), spki, method, error, nanos / 1000));
    }
}
