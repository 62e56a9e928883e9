// TicketKeySource -- where the deployment's session-ticket keys come from (the key-server pool).
package io.elastikey.edge.tls;

import io.elastikey.protocol.tickets.TicketKeySet;

import java.util.concurrent.CompletableFuture;

/** Fetches the deployment's current ticket keys; must not block. */
@FunctionalInterface
public interface TicketKeySource {
    CompletableFuture<TicketKeySet> fetch();
}
