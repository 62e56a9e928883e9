// KeylessOpcode -- the operations of the Keyless protocol and the SKI request each one is.
package io.elastikey.protocol.keyless;

import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiMethod;
import io.elastikey.protocol.ski.SkiRequest;

/**
 * The opcodes of PROTOCOLS.md section 2, and one of Elastikey's ({@link #TICKET_KEYS}). A key server serves both
 * protocols with one crypto engine, so each request opcode is expressed here as the {@link SkiRequest} that does the
 * same thing ({@link #toSkiRequest}): Keyless is a second codec for the same operations, not a second engine.
 *
 * <p>Keyless signs hash values the client computed, which SKI's {@code ECDHE} and {@code SIGN} do not (they sign the
 * data), hence the {@code *-DIGEST} SKI methods. The opcode's family is part of the request: an ECDSA opcode
 * asked of an RSA key fails rather than producing an RSA signature (gokeyless signs it anyway; a client that
 * asks for ECDSA cannot use PKCS#1 bytes).
 */
public enum KeylessOpcode {
    RSA_DECRYPT(0x01, SkiMethod.RSA_RAW, null),
    RSA_SIGN_MD5SHA1(0x02, SkiMethod.PKCS1_DIGEST, SkiHash.MD5_SHA1),
    RSA_SIGN_SHA1(0x03, SkiMethod.PKCS1_DIGEST, SkiHash.SHA1),
    RSA_SIGN_SHA224(0x04, SkiMethod.PKCS1_DIGEST, SkiHash.SHA224),
    RSA_SIGN_SHA256(0x05, SkiMethod.PKCS1_DIGEST, SkiHash.SHA256),
    RSA_SIGN_SHA384(0x06, SkiMethod.PKCS1_DIGEST, SkiHash.SHA384),
    RSA_SIGN_SHA512(0x07, SkiMethod.PKCS1_DIGEST, SkiHash.SHA512),
    ECDSA_SIGN_MD5SHA1(0x12, SkiMethod.ECDSA_DIGEST, SkiHash.MD5_SHA1),
    ECDSA_SIGN_SHA1(0x13, SkiMethod.ECDSA_DIGEST, SkiHash.SHA1),
    ECDSA_SIGN_SHA224(0x14, SkiMethod.ECDSA_DIGEST, SkiHash.SHA224),
    ECDSA_SIGN_SHA256(0x15, SkiMethod.ECDSA_DIGEST, SkiHash.SHA256),
    ECDSA_SIGN_SHA384(0x16, SkiMethod.ECDSA_DIGEST, SkiHash.SHA384),
    ECDSA_SIGN_SHA512(0x17, SkiMethod.ECDSA_DIGEST, SkiHash.SHA512),
    /** Ed25519 signs the message itself: the payload is the data, not a hash of it. */
    ED25519_SIGN(0x18, SkiMethod.SIGN, null),
    RSA_PSS_SIGN_SHA256(0x35, SkiMethod.PSS_DIGEST, SkiHash.SHA256),
    RSA_PSS_SIGN_SHA384(0x36, SkiMethod.PSS_DIGEST, SkiHash.SHA384),
    RSA_PSS_SIGN_SHA512(0x37, SkiMethod.PSS_DIGEST, SkiHash.SHA512),
    /**
     * Elastikey's extension: asks for the deployment's session-ticket keys ({@code allow tickets} in the policy),
     * answered with their JSON ({@link io.elastikey.protocol.tickets.TicketKeySet}) as the payload. Touches no key;
     * neither Keyless nor gokeyless's own extensions ({@code 0x21}-{@code 0x24}, {@code 0xF3}) use
     * {@code 0xE0}-{@code 0xEF}.
     */
    TICKET_KEYS(0xE1, null, null),
    /** A successful answer; its payload item carries the result. */
    RESPONSE(0xF0, null, null),
    /** Asks for a {@link #PONG} echoing the payload; touches no key. */
    PING(0xF1, null, null),
    PONG(0xF2, null, null),
    /** A failed answer; its payload is one {@link KeylessError} code. */
    ERROR(0xFF, null, null);

    private static final KeylessOpcode[] BY_CODE = new KeylessOpcode[256];

    static {
        for (KeylessOpcode opcode : values()) {
            BY_CODE[opcode.code] = opcode;
        }
    }

    private final int code;
    private final SkiMethod method;
    private final SkiHash hash;

    KeylessOpcode(int code, SkiMethod method, SkiHash hash) {
        this.code = code;
        this.method = method;
        this.hash = hash;
    }

    public int code() {
        return code;
    }

    /** The opcode with this byte value, or {@code null} for one the protocol does not define. */
    public static KeylessOpcode ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** Whether this opcode asks for a private-key operation (not a ping, not an answer). */
    public boolean usesKey() {
        return method != null;
    }

    /** Whether a client may send this opcode as a request at all ({@link #RESPONSE}, {@link #PONG} and {@link #ERROR} are answers). */
    public boolean isRequest() {
        return usesKey() || this == PING || this == TICKET_KEYS;
    }

    /** The SKI method that does this operation; {@code null} for ping and the answers. */
    public SkiMethod method() {
        return method;
    }

    /** The digest a signing opcode's payload is a value of; {@code null} for decryption, Ed25519 and the rest. */
    public SkiHash hash() {
        return hash;
    }

    /**
     * The SKI request that performs this opcode with the key {@code spki} names.
     *
     * @param spki    the key identifier, hex
     * @param payload the request's payload, owned by the request from now on
     * @throws IllegalStateException for an opcode that uses no key ({@link #usesKey()})
     */
    public SkiRequest toSkiRequest(String spki, byte[] payload) {
        if (method == null) {
            throw new IllegalStateException(this + " is not a key operation");
        }
        return switch (method) {
            case RSA_RAW -> SkiRequest.rsaRaw(spki, payload);
            case SIGN -> SkiRequest.sign(spki, SignatureScheme.ED25519, payload);
            default -> SkiRequest.signDigest(method, spki, hash, payload);
        };
    }
}
