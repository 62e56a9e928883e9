// P256Pkcs8 -- the private scalar of a P-256 key, read out of its PKCS#8 DER (RFC 5208, RFC 5915) with Bouncy Castle's ASN.1.
package io.elastikey.keyserver.crypto;

import java.io.IOException;
import java.math.BigInteger;
import java.security.spec.InvalidKeySpecException;
import java.util.Arrays;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;

/**
 * Reads a P-256 {@code PrivateKeyInfo} into a {@link P256ScalarKey}: checks the algorithm ({@code id-ecPublicKey})
 * and the named curve ({@code prime256v1}, in the algorithm's parameters or the key's own), takes the scalar and
 * checks it is in [1, n-1]. An embedded public key is not looked at: the store's records are authenticated (AES-GCM
 * over the key ID and the certificate) and the key was checked against its certificate when it was added, so deriving
 * the public key again, the scalar multiplication a provider does here, would only prove what is already known.
 *
 * <p>The DER is Bouncy Castle's to read, as everywhere else in the project ({@code keys.PublicKeys}); bytes after
 * the structure are refused. The scalar is taken as bytes, never as a {@code BigInteger}, and the arrays holding it
 * on the way are wiped; the caller wipes {@code der}. Error messages name the structure, never a byte of it.
 */
final class P256Pkcs8 {
    private static final byte[] ORDER = unsigned32(P256ScalarKey.P256.getOrder());

    private P256Pkcs8() {
    }

    static P256ScalarKey parse(byte[] der) throws InvalidKeySpecException {
        PrivateKeyInfo info;
        ASN1Sequence ecKey;
        try {
            info = PrivateKeyInfo.getInstance(ASN1Primitive.fromByteArray(der));
            if (!X9ObjectIdentifiers.id_ecPublicKey.equals(info.getPrivateKeyAlgorithm().getAlgorithm())) {
                throw new InvalidKeySpecException("the PKCS#8 key is not an EC key");
            }
            ecKey = ASN1Sequence.getInstance(info.parsePrivateKey());
        } catch (IOException | RuntimeException e) { // Bouncy Castle's word for damaged DER
            throw new InvalidKeySpecException("the PKCS#8 key is not valid DER (" + e.getClass().getSimpleName() + ")");
        }
        try {
            ASN1Encodable curve = info.getPrivateKeyAlgorithm().getParameters();
            if (curve == null) {
                curve = ECPrivateKey.getInstance(ecKey).getParametersObject();
            }
            if (curve == null) {
                throw new InvalidKeySpecException("the PKCS#8 EC key names no curve");
            }
            if (!X9ObjectIdentifiers.prime256v1.equals(curve)) {
                throw new InvalidKeySpecException("the PKCS#8 EC key is not on the named curve P-256");
            }
            return new P256ScalarKey(scalar(ASN1OctetString.getInstance(ecKey.getObjectAt(1)).getOctets()));
        } catch (RuntimeException e) {
            throw new InvalidKeySpecException("ECPrivateKey is not valid (" + e.getClass().getSimpleName() + ")");
        } finally {
            Arrays.fill(info.getPrivateKey().getOctets(), (byte) 0);
        }
    }

    /** {@code octets} (Bouncy Castle's own array, wiped here) as a P-256 scalar: at most 32 bytes, in [1, n-1]. */
    private static byte[] scalar(byte[] octets) throws InvalidKeySpecException {
        try {
            if (octets.length == 0 || octets.length > P256ScalarKey.SCALAR_LENGTH) {
                throw new InvalidKeySpecException("the private scalar is not a P-256 scalar");
            }
            byte[] scalar = new byte[P256ScalarKey.SCALAR_LENGTH];
            System.arraycopy(octets, 0, scalar, scalar.length - octets.length, octets.length);
            if (Arrays.equals(scalar, new byte[P256ScalarKey.SCALAR_LENGTH])
                    || Arrays.compareUnsigned(scalar, ORDER) >= 0) {
                Arrays.fill(scalar, (byte) 0);
                throw new InvalidKeySpecException("the private scalar is out of range for P-256");
            }
            return scalar;
        } finally {
            Arrays.fill(octets, (byte) 0);
        }
    }

    /** The 32 big-endian bytes of a number below 2^256 (BigInteger adds a sign byte when the top bit is set). */
    private static byte[] unsigned32(BigInteger n) {
        byte[] bytes = n.toByteArray();
        return Arrays.copyOfRange(bytes, bytes.length - P256ScalarKey.SCALAR_LENGTH, bytes.length);
    }
}
