// Signatures -- which JCA signature a SKI request asks for, so the generator can verify answers with JDK providers.
package io.elastikey.perf.ski;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;

import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiHash;

/**
 * The mapping from SKI's signing requests to JCA algorithms, written from the specifications rather than from the
 * key server's code, so that verifying with it checks the server instead of repeating it:
 * <ul>
 *   <li>{@code ECDHE} with a hash signs the input with the key's own algorithm: PKCS#1 v1.5 for RSA, ECDSA for EC,
 *       and Ed25519 over the input itself (RFC 8422 section 5.10, the hash does not apply). {@code MD5-SHA1} is the
 *       TLS 1.0/1.1 form: the 36-byte MD5 || SHA-1 of the input, signed by RSA without a DigestInfo and by ECDSA as
 *       the digest (RFC 4346 section 7.4.3, RFC 4492 section 5.4).
 *   <li>{@code SIGN} uses the TLS 1.3 scheme (RFC 8446 section 4.2.3); RSA-PSS with MGF1 of the same hash and a salt
 *       as long as the hash. ECDSA signatures are DER, as TLS sends them.
 * </ul>
 */
final class Signatures {
    private Signatures() {
    }

    /** The JCA key algorithm ({@code RSA}, {@code EC}, {@code Ed25519}) a scheme's keys have. */
    static String keyAlgorithmOf(SignatureScheme scheme) {
        String name = scheme.wireName();
        if (name.startsWith("rsa_")) {
            return "RSA";
        }
        return name.startsWith("ecdsa_") ? "EC" : "Ed25519";
    }

    /** The scheme a TLS 1.3 server would pick for a key of {@code type}: PSS for RSA, the curve's own for EC. */
    static SignatureScheme defaultSchemeFor(KeyType type) {
        return switch (type) {
            case RSA_2048, RSA_3072, RSA_4096 -> SignatureScheme.RSA_PSS_RSAE_SHA256;
            case EC_P256 -> SignatureScheme.ECDSA_SECP256R1_SHA256;
            case EC_P384 -> SignatureScheme.ECDSA_SECP384R1_SHA384;
            case ED25519 -> SignatureScheme.ED25519;
        };
    }

    /** A verifier for a {@code SIGN} with {@code scheme}, not yet initialised with a key. */
    static Signature forScheme(SignatureScheme scheme) throws GeneralSecurityException {
        String name = scheme.wireName();
        if (name.equals("ed25519")) {
            return Signature.getInstance("Ed25519");
        }
        String hash = jcaHash(name.substring(name.lastIndexOf('_') + 1));
        String hashNoDash = hash.replace("-", "");
        if (name.startsWith("rsa_pss_")) {
            Signature pss = Signature.getInstance("RSASSA-PSS");
            pss.setParameter(new PSSParameterSpec(hash, "MGF1", new MGF1ParameterSpec(hash),
                    MessageDigest.getInstance(hash).getDigestLength(), PSSParameterSpec.TRAILER_FIELD_BC));
            return pss;
        }
        return Signature.getInstance(hashNoDash + (name.startsWith("rsa_") ? "withRSA" : "withECDSA"));
    }

    /**
     * A verifier for an {@code ECDHE} with {@code hash} by a key of {@code keyAlgorithm}, and whether the data to
     * feed it is the MD5 || SHA-1 pair rather than the input.
     */
    static Signature forEcdhe(SkiHash hash, String keyAlgorithm) throws GeneralSecurityException {
        if (keyAlgorithm.equals("Ed25519")) {
            return Signature.getInstance("Ed25519");
        }
        String suffix = keyAlgorithm.equals("RSA") ? "withRSA" : "withECDSA";
        if (hash == SkiHash.MD5_SHA1) {
            return Signature.getInstance("NONE" + suffix);
        }
        return Signature.getInstance(hash.jcaName().replace("-", "") + suffix);
    }

    /** What an ECDHE signature covers: the input, or for {@code MD5-SHA1} (not Ed25519) its two digests. */
    static byte[] ecdheSignedData(SkiHash hash, String keyAlgorithm, byte[] input) throws GeneralSecurityException {
        if (hash != SkiHash.MD5_SHA1 || keyAlgorithm.equals("Ed25519")) {
            return input;
        }
        byte[] md5 = MessageDigest.getInstance("MD5").digest(input);
        byte[] sha1 = MessageDigest.getInstance("SHA-1").digest(input);
        byte[] both = new byte[md5.length + sha1.length];
        System.arraycopy(md5, 0, both, 0, md5.length);
        System.arraycopy(sha1, 0, both, md5.length, sha1.length);
        return both;
    }

    /** The value of {@code hash} over {@code data} (MD5 || SHA-1 for {@code MD5-SHA1}): what a *-DIGEST request signs. */
    static byte[] hashValue(SkiHash hash, byte[] data) {
        try {
            return hash == SkiHash.MD5_SHA1 ? ecdheSignedData(hash, "RSA", data)
                    : MessageDigest.getInstance(hash.jcaName()).digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has " + hash.wireName(), e);
        }
    }

    /** The TLS 1.3 RSA-PSS scheme with {@code hash}, whose verifier checks an {@code RSA-PSS-DIGEST} answer. */
    static SignatureScheme pssScheme(SkiHash hash) {
        return switch (hash) {
            case SHA256 -> SignatureScheme.RSA_PSS_RSAE_SHA256;
            case SHA384 -> SignatureScheme.RSA_PSS_RSAE_SHA384;
            case SHA512 -> SignatureScheme.RSA_PSS_RSAE_SHA512;
            default -> throw new IllegalArgumentException("no PSS scheme with " + hash.wireName());
        };
    }

    private static String jcaHash(String schemeSuffix) {
        return switch (schemeSuffix) {
            case "sha1" -> "SHA-1";
            case "sha256" -> "SHA-256";
            case "sha384" -> "SHA-384";
            case "sha512" -> "SHA-512";
            default -> throw new IllegalArgumentException("no hash in scheme suffix " + schemeSuffix);
        };
    }
}
