// TicketKeyService -- answers an edge's request for the session-ticket keys, if the policy lets it have them.
package io.elastikey.keyserver.tickets;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.keyserver.authz.Grants;
import io.elastikey.keyserver.ski.Caller;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;

import java.util.function.Function;

/**
 * {@code GET /ticket-keys} on the SKI endpoint: the current {@link io.elastikey.protocol.tickets.TicketKeySet} as
 * JSON, for callers whose grants include {@code allow tickets}, decided against the policy in force now (not the
 * one the connection started under: a revoked edge stops getting keys at the next reload).
 */
public final class TicketKeyService {
    private final TicketKeySchedule schedule;
    private final Function<ClientIdentity, Grants> grants;

    public TicketKeyService(TicketKeySchedule schedule, Function<ClientIdentity, Grants> grants) {
        this.schedule = schedule;
        this.grants = grants;
    }

    /**
     * The set for {@code caller}, as JSON.
     *
     * @throws SkiException {@link SkiError#REQUEST_DENIED} when the policy does not grant {@code caller} the keys
     */
    public byte[] answer(Caller caller) {
        if (!grants.apply(caller.identity()).permitsTicketKeys()) {
            throw new SkiException(SkiError.REQUEST_DENIED, caller.name() + " is not granted the ticket keys");
        }
        return schedule.current().toJson();
    }
}
