// DigestSigning -- signatures of hash values the client computed: the *-DIGEST methods, as the Keyless protocol asks.
package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SkiHash;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;

/**
 * Signs a digest rather than data. JCA signatures hash their input themselves, so the RSA signatures are built
 * here from the primitives: the PKCS#1 v1.5 block ({@code DigestInfo} of the hash, type-1 padding; MD5-SHA1
 * without a DigestInfo, as TLS 1.0 does) or the EMSA-PSS encoding of RFC 8017 section 9.1.1 (MGF1 with the same
 * hash, salt as long as the hash, as TLS 1.3 uses PSS), each put through the raw RSA private operation, whose result
 * the provider checks with the public key ({@link RsaDecryption}). ECDSA takes the value as it is.
 *
 * <p>The key must be of the method's family and the digest exactly as long as its hash: anything else is a
 * malformed request, not a signature of something the client did not mean.
 */
final class DigestSigning {
    private static final int PSS_PREFIX_ZEROS = 8;

    private DigestSigning() {
    }

    /** RSA PKCS#1 v1.5 of {@code digest}, as many bytes as the modulus. */
    static byte[] pkcs1(LoadedKey key, SkiHash hash, byte[] digest, JcaObjects jca) throws GeneralSecurityException {
        requireRsa(key, "RSA-PKCS1-DIGEST");
        requireLength(hash, digest);
        int length = (RsaDecryption.modulus(key).bitLength() + 7) / 8;
        byte[] encoded = hash == SkiHash.MD5_SHA1 ? digest : DigestInfo.of(hash, digest);
        return RsaDecryption.privateOperation(key.privateKey(), Pkcs1.type1(encoded, length), length, jca);
    }

    /** RSASSA-PSS of {@code digest}, as many bytes as the modulus. */
    static byte[] pss(LoadedKey key, SkiHash hash, byte[] digest, JcaObjects jca) throws GeneralSecurityException {
        requireRsa(key, "RSA-PSS-DIGEST");
        if (hash == SkiHash.MD5_SHA1) {
            throw SignatureSelection.malformed("RSA-PSS-DIGEST with MD5-SHA1, which is no PSS hash");
        }
        requireLength(hash, digest);
        int modulusBits = RsaDecryption.modulus(key).bitLength();
        int length = (modulusBits + 7) / 8;
        byte[] encoded = pssEncode(digest, modulusBits - 1, jca.digest(hash.jcaName()), jca);
        byte[] block = new byte[length];
        System.arraycopy(encoded, 0, block, length - encoded.length, encoded.length);
        return RsaDecryption.privateOperation(key.privateKey(), block, length, jca);
    }

    /** ECDSA of {@code digest}, DER-encoded. */
    static byte[] ecdsa(LoadedKey key, SkiHash hash, byte[] digest, JcaObjects jca) throws GeneralSecurityException {
        if (key.type() != KeyType.EC_P256 && key.type() != KeyType.EC_P384) {
            throw SignatureSelection.malformed("ECDSA-DIGEST asked of a " + key.type().cliName() + " key");
        }
        requireLength(hash, digest);
        return Signing.sign(key, SignatureRecipe.ECDSA_HASH_VALUE, digest, jca);
    }

    /** EMSA-PSS-ENCODE (RFC 8017 section 9.1.1) of {@code mHash} for a modulus of {@code emBits + 1} bits. */
    static byte[] pssEncode(byte[] mHash, int emBits, MessageDigest hash, JcaObjects jca) {
        int hLen = mHash.length;
        int sLen = hLen;
        int emLen = (emBits + 7) / 8;
        if (emLen < hLen + sLen + 2) {
            throw SignatureSelection.malformed("the RSA modulus is too short for PSS with this hash");
        }
        byte[] salt = new byte[sLen];
        jca.random().nextBytes(salt);
        hash.update(new byte[PSS_PREFIX_ZEROS]);
        hash.update(mHash);
        hash.update(salt);
        byte[] h = hash.digest();
        byte[] encoded = new byte[emLen];
        int dbLength = emLen - hLen - 1;
        encoded[dbLength - sLen - 1] = 0x01;
        System.arraycopy(salt, 0, encoded, dbLength - sLen, sLen);
        mgf1Xor(encoded, dbLength, h, hash);
        encoded[0] &= (byte) (0xFF >>> (8 * emLen - emBits));
        System.arraycopy(h, 0, encoded, dbLength, hLen);
        encoded[emLen - 1] = (byte) 0xBC;
        return encoded;
    }

    /** XORs the first {@code length} bytes of {@code target} with MGF1({@code seed}). */
    private static void mgf1Xor(byte[] target, int length, byte[] seed, MessageDigest hash) {
        byte[] counter = new byte[4];
        int done = 0;
        for (int c = 0; done < length; c++) {
            counter[0] = (byte) (c >>> 24);
            counter[1] = (byte) (c >>> 16);
            counter[2] = (byte) (c >>> 8);
            counter[3] = (byte) c;
            hash.update(seed);
            hash.update(counter);
            byte[] block = hash.digest();
            for (int i = 0; i < block.length && done < length; i++, done++) {
                target[done] ^= block[i];
            }
        }
    }

    private static void requireRsa(LoadedKey key, String method) {
        if (!SignatureSelection.isRsa(key.type())) {
            throw SignatureSelection.malformed(method + " asked of a " + key.type().cliName() + " key");
        }
    }

    private static void requireLength(SkiHash hash, byte[] digest) {
        if (digest.length != hash.length()) {
            throw SignatureSelection.malformed("a " + hash.wireName() + " value of " + digest.length
                    + " bytes (not " + hash.length() + ")");
        }
    }
}
