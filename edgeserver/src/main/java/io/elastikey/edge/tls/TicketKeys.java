package io.elastikey.edge.tls;

import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.SslContext;

import java.security.SecureRandom;

/**
 * The session-ticket keys: the current one encrypts new tickets, the previous one still decrypts tickets
 * issued before the last rotation. A resumed handshake needs no private-key operation, so tickets are what
 * keep most handshakes away from the key server.
 *
 * <p>Keys are random, live in memory only and rotate every {@code tls.tickets.rotate}; a ticket therefore
 * resumes for at most two rotation periods, and a restart invalidates every ticket (clients then do one
 * full handshake). They are applied to every context {@link EdgeTls} builds, so a certificate reload keeps
 * tickets working.
 */
final class TicketKeys {
    private final SecureRandom random = new SecureRandom();
    private volatile OpenSslSessionTicketKey current = newKey();
    private volatile OpenSslSessionTicketKey previous;

    synchronized void rotate() {
        previous = current;
        current = newKey();
    }

    /** Installs the keys in {@code context}, which must be a BoringSSL context. */
    void applyTo(SslContext context) {
        OpenSslSessionContext sessions = (OpenSslSessionContext) context.sessionContext();
        OpenSslSessionTicketKey now = current;
        OpenSslSessionTicketKey before = previous;
        if (before == null) {
            sessions.setTicketKeys(now);
        } else {
            sessions.setTicketKeys(now, before);
        }
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
