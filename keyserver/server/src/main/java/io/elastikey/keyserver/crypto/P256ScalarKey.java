// P256ScalarKey -- a P-256 private key as its bare 32-byte scalar, signed by P256Native.
package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.CompactKey;

import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.math.BigInteger;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECParameterSpec;

/**
 * A P-256 private key that is only its scalar {@code d}, big-endian, 32 bytes: what {@link P256Native} signs with.
 * Made without the scalar multiplication a provider's key factory does, and 32 bytes where a provider's key object
 * takes some 700 with its native half, so a key server can hold a million of them (packed, see
 * {@link CompactKey}) and load one per cache miss cheaply ({@link P256Pkcs8} reads it from PKCS#8).
 *
 * <p>It is an {@link ECPrivateKey} so that code asking for the curve or the scalar gets answers, but no JCA
 * provider can sign with it: {@link #getEncoded()} is {@code null} and {@code Signing} routes it to the native
 * signer. It refuses to be serialized, and {@link #toString()} names only the curve.
 */
final class P256ScalarKey implements ECPrivateKey, CompactKey {
    static final int SCALAR_LENGTH = 32;
    static final ECParameterSpec P256 = ProviderKeyParser.namedCurve("secp256r1");

    private static final long serialVersionUID = 1L;

    private final byte[] scalar;

    /** Takes ownership of {@code scalar}, which {@link P256Pkcs8} checked to be in [1, n-1]. */
    P256ScalarKey(byte[] scalar) {
        if (scalar.length != SCALAR_LENGTH) {
            throw new IllegalArgumentException("a P-256 scalar is 32 bytes, not " + scalar.length);
        }
        this.scalar = scalar;
    }

    /** The scalar itself, not a copy: for the native signer only. */
    byte[] scalar() {
        return scalar;
    }

    @Override
    public byte[] toBytes() {
        return scalar.clone();
    }

    @Override
    public BigInteger getS() {
        return new BigInteger(1, scalar);
    }

    @Override
    public ECParameterSpec getParams() {
        return P256;
    }

    @Override
    public String getAlgorithm() {
        return "EC";
    }

    /** {@code null}: there is no encoding to hand a provider; the native signer is the only user. */
    @Override
    public String getFormat() {
        return null;
    }

    @Override
    public byte[] getEncoded() {
        return null;
    }

    @Override
    public String toString() {
        return "P256ScalarKey[secp256r1]";
    }

    private void writeObject(ObjectOutputStream out) throws NotSerializableException {
        throw new NotSerializableException("a private key is not serialized");
    }
}
