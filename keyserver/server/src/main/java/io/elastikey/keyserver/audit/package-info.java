/**
 * The audit trail: one JSON line per request ({@link io.elastikey.keyserver.audit.AuditEvent}), written off the
 * request path by {@link io.elastikey.keyserver.audit.AuditLog} to the SLF4J logger {@code elastikey.audit}, and
 * one per key a {@code keys} command in the server changes ({@link io.elastikey.keyserver.audit.KeyChangeEvent}).
 * Neither event type has a field that could carry key material, request inputs or outputs.
 */
package io.elastikey.keyserver.audit;
