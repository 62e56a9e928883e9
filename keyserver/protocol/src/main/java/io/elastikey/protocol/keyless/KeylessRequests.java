// KeylessRequests -- a client's SKI request expressed as a Keyless opcode and payload.
package io.elastikey.protocol.keyless;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiMethod;
import io.elastikey.protocol.ski.SkiRequest;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Translates the requests an edge server makes ({@link SkiRequest}) into Keyless terms, so the edge can use either
 * protocol with the same code. Keyless signs hash values, so a {@code SIGN} request's data is hashed here with the
 * scheme's hash; Ed25519 is sent as the data itself.
 *
 * <p>What Keyless cannot express fails with {@link SkiError#MALFORMED_REQUEST}: {@code RSA} (Keyless has no
 * pre-master decryption with implicit rejection; use {@code RSA-RAW}), {@code ECDHE} (its opcode depends on the
 * key's type, which the request does not carry), the {@code rsa_pss_pss_*} schemes, and key identifiers that are
 * neither 20 bytes (sent as the Subject Key Identifier) nor 32 (sent as the certificate digest).
 */
public final class KeylessRequests {
    /** [method][hash]: the opcode of each signature of a hash value, looked up per request. */
    private static final KeylessOpcode[][] BY_METHOD_AND_HASH =
            new KeylessOpcode[SkiMethod.values().length][SkiHash.values().length];

    static {
        for (KeylessOpcode opcode : KeylessOpcode.values()) {
            if (opcode.method() != null && opcode.hash() != null) {
                BY_METHOD_AND_HASH[opcode.method().ordinal()][opcode.hash().ordinal()] = opcode;
            }
        }
    }

    private KeylessRequests() {
    }

    /**
     * One request ready for {@link KeylessCodec#writeRequest}.
     *
     * @param ski    the 20-byte identifier, or {@code null}
     * @param digest the 32-byte identifier, or {@code null}
     */
    public record Translated(KeylessOpcode opcode, byte[] ski, byte[] digest, byte[] payload) {
    }

    /** @throws SkiException ({@link SkiError#MALFORMED_REQUEST}) for what Keyless cannot express */
    public static Translated translate(SkiRequest request) {
        byte[] identifier = identifier(request.spki());
        boolean ski = identifier.length == KeyIds.SHA1_LENGTH;
        return switch (request.method()) {
            case RSA_RAW -> translated(KeylessOpcode.RSA_DECRYPT, identifier, ski, request.input());
            case SIGN -> sign(request.scheme(), identifier, ski, request.input());
            case PKCS1_DIGEST, PSS_DIGEST, ECDSA_DIGEST -> translated(digestOpcode(request.method(), request.hash()),
                    identifier, ski, request.input());
            case RSA -> throw unsupported("RSA pre-master decryption (send RSA-RAW and check the padding)");
            case ECDHE -> throw unsupported("ECDHE (its opcode depends on the key type; send SIGN or a *-DIGEST method)");
        };
    }

    private static Translated sign(SignatureScheme scheme, byte[] identifier, boolean ski, byte[] data) {
        return switch (scheme) {
            case ED25519 -> translated(KeylessOpcode.ED25519_SIGN, identifier, ski, data);
            case RSA_PKCS1_SHA1 -> hashed(KeylessOpcode.RSA_SIGN_SHA1, identifier, ski, data);
            case RSA_PKCS1_SHA256 -> hashed(KeylessOpcode.RSA_SIGN_SHA256, identifier, ski, data);
            case RSA_PKCS1_SHA384 -> hashed(KeylessOpcode.RSA_SIGN_SHA384, identifier, ski, data);
            case RSA_PKCS1_SHA512 -> hashed(KeylessOpcode.RSA_SIGN_SHA512, identifier, ski, data);
            case RSA_PSS_RSAE_SHA256 -> hashed(KeylessOpcode.RSA_PSS_SIGN_SHA256, identifier, ski, data);
            case RSA_PSS_RSAE_SHA384 -> hashed(KeylessOpcode.RSA_PSS_SIGN_SHA384, identifier, ski, data);
            case RSA_PSS_RSAE_SHA512 -> hashed(KeylessOpcode.RSA_PSS_SIGN_SHA512, identifier, ski, data);
            case ECDSA_SHA1 -> hashed(KeylessOpcode.ECDSA_SIGN_SHA1, identifier, ski, data);
            case ECDSA_SECP256R1_SHA256 -> hashed(KeylessOpcode.ECDSA_SIGN_SHA256, identifier, ski, data);
            case ECDSA_SECP384R1_SHA384 -> hashed(KeylessOpcode.ECDSA_SIGN_SHA384, identifier, ski, data);
            case ECDSA_SECP521R1_SHA512 -> hashed(KeylessOpcode.ECDSA_SIGN_SHA512, identifier, ski, data);
            case RSA_PSS_PSS_SHA256, RSA_PSS_PSS_SHA384, RSA_PSS_PSS_SHA512 -> throw unsupported(scheme.wireName());
        };
    }

    /** The opcode of a {@code *-DIGEST} method with {@code hash}. */
    static KeylessOpcode digestOpcode(SkiMethod method, SkiHash hash) {
        KeylessOpcode opcode = BY_METHOD_AND_HASH[method.ordinal()][hash.ordinal()];
        if (opcode == null) {
            throw unsupported(method.wireName() + " with " + hash.wireName());
        }
        return opcode;
    }

    private static Translated hashed(KeylessOpcode opcode, byte[] identifier, boolean ski, byte[] data) {
        try {
            byte[] digest = MessageDigest.getInstance(opcode.hash().jcaName()).digest(data);
            return translated(opcode, identifier, ski, digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has " + opcode.hash().jcaName(), e);
        }
    }

    private static Translated translated(KeylessOpcode opcode, byte[] identifier, boolean ski, byte[] payload) {
        return ski ? new Translated(opcode, identifier, null, payload) : new Translated(opcode, null, identifier, payload);
    }

    private static byte[] identifier(String spki) {
        byte[] identifier;
        try {
            identifier = KeyIds.parse(spki);
        } catch (IllegalArgumentException e) {
            throw unsupported("a key identifier that is not hex");
        }
        if (identifier.length != KeyIds.SHA1_LENGTH && identifier.length != KeyIds.SHA256_LENGTH) {
            throw unsupported("a key identifier of " + identifier.length + " bytes (Keyless carries 20 or 32)");
        }
        return identifier;
    }

    private static SkiException unsupported(String what) {
        return new SkiException(SkiError.MALFORMED_REQUEST, "the Keyless protocol cannot express " + what);
    }
}
