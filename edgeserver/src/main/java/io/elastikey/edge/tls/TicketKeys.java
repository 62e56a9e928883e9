package io.elastikey.edge.tls;

import io.elastikey.protocol.tickets.TicketKey;
import io.elastikey.protocol.tickets.TicketKeySet;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.SslContext;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;

/**
 * The session-ticket keys: the first encrypts new tickets, the others still decrypt. A resumed handshake needs no
 * private-key operation, so tickets are what keep most handshakes away from the key server.
 *
 * <p>Two sources. The deployment's keys, fetched from the key servers ({@link #install}): every edge holds the
 * same ones, so a ticket from one edge resumes on any other. Or keys of this edge alone, random, rotated every
 * {@code tls.tickets.rotate} ({@link #rotate}): a ticket resumes only here, for at most two rotation periods. Both
 * live in memory only: no ticket key is ever written to disk. They are applied to every context {@link EdgeTls}
 * builds, so a certificate reload keeps tickets working.
 */
final class TicketKeys {
    private final SecureRandom random = new SecureRandom();
    private volatile OpenSslSessionTicketKey[] keys = {newKey()};
    private volatile long fleetEpoch = Long.MIN_VALUE;

    /** A new random key of this edge's own; the one before still decrypts until the next rotation. */
    synchronized void rotate() {
        keys = new OpenSslSessionTicketKey[] {newKey(), keys[0]};
        fleetEpoch = Long.MIN_VALUE;
    }

    /**
     * The deployment's keys, primary first. Coming from keys of its own (at start, before the first fetch answered,
     * or after the key servers were out of reach for a period) the edge keeps its own primary as a key that only
     * decrypts, until the deployment's next primary: the tickets it issued meanwhile still resume here, as they would
     * have under its own rotation. Without that, a client's first handshake on a busy edge start, made before the
     * first fetch, could not resume a moment later on the same edge.
     */
    synchronized void install(TicketKeySet set) {
        int size = set.keys().size();
        boolean fromOwn = fleetEpoch == Long.MIN_VALUE;
        OpenSslSessionTicketKey[] fleet = new OpenSslSessionTicketKey[fromOwn ? size + 1 : size];
        for (int i = 0; i < size; i++) {
            TicketKey key = set.keys().get(i);
            fleet[i] = new OpenSslSessionTicketKey(key.name(), key.hmacKey(), key.aesKey());
        }
        if (fromOwn) {
            fleet[size] = keys[0];
        }
        keys = fleet;
        fleetEpoch = set.primary().epoch();
    }

    /** The rotation period of the deployment's primary key in use, or {@code Long.MIN_VALUE} for keys of our own. */
    long fleetEpoch() {
        return fleetEpoch;
    }

    /** The names of the keys in force, the one that encrypts first: what a test may see of them. */
    synchronized List<byte[]> names() {
        return Arrays.stream(keys).map(OpenSslSessionTicketKey::name).toList();
    }

    /** Installs the keys in {@code context}, which must be a BoringSSL context. */
    void applyTo(SslContext context) {
        ((OpenSslSessionContext) context.sessionContext()).setTicketKeys(keys);
    }

    private OpenSslSessionTicketKey newKey() {
        byte[] name = new byte[OpenSslSessionTicketKey.NAME_SIZE];
        byte[] hmac = new byte[OpenSslSessionTicketKey.HMAC_KEY_SIZE];
        byte[] aes = new byte[OpenSslSessionTicketKey.AES_KEY_SIZE];
        random.nextBytes(name);
        random.nextBytes(hmac);
        random.nextBytes(aes);
        return new OpenSslSessionTicketKey(name, hmac, aes);
    }
}
