package io.elastikey.keyserver.ski;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.audit.AuditEvent;
import io.elastikey.keyserver.audit.AuditLog;
import io.elastikey.keyserver.audit.ClientProtocol;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;

/** Counts every answer in the metrics and enqueues its audit line; one per protocol, which both name. */
public final class AuditingRequestLog implements RequestLog {
    private final KeyServerMetrics metrics;
    private final AuditLog audit;
    private final ClientProtocol protocol;

    public AuditingRequestLog(KeyServerMetrics metrics, AuditLog audit, ClientProtocol protocol) {
        this.metrics = metrics;
        this.audit = audit;
        this.protocol = protocol;
    }

    @Override
    public void answered(Caller caller, SkiMethod method, String spki, SkiError error, long nanos) {
        metrics.request(protocol, method, error, nanos);
        audit.record(AuditEvent.now(caller.identity(), caller.remote(), protocol, spki, method, error, nanos / 1000));
    }
}
