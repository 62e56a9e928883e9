// RsaCrtCheck -- do an RSA private key's CRT numbers belong together?
package io.elastikey.keyserver.crypto;

import java.math.BigInteger;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.InvalidKeySpecException;

/**
 * The checks a CRT signature depends on, done with {@link BigInteger} before a key is handed to a
 * provider that will not check it (ACCP building a key from an {@code RSAPrivateCrtKeySpec}): the
 * primes multiply to the modulus, each CRT exponent inverts the public exponent modulo its prime
 * minus one, and the coefficient is the inverse of q modulo p. A key that fails would give wrong
 * signatures; BoringSSL-derived libraries verify each CRT result with the public key, so a wrong
 * answer never leaves the server, but a bad key should fail when it is loaded, with a clear error.
 *
 * <p>Primality is not tested: keys come from the operator's own import, not from clients.
 */
final class RsaCrtCheck {
    private RsaCrtCheck() {
    }

    /** @throws InvalidKeySpecException naming the first check that failed; the message quotes no number */
    static void check(RSAPrivateCrtKey key) throws InvalidKeySpecException {
        BigInteger p = key.getPrimeP();
        BigInteger q = key.getPrimeQ();
        BigInteger e = key.getPublicExponent();
        if (p.signum() <= 0 || q.signum() <= 0 || e.signum() <= 0) {
            throw new InvalidKeySpecException("the RSA key's primes or public exponent are missing");
        }
        if (!p.multiply(q).equals(key.getModulus())) {
            throw new InvalidKeySpecException("the RSA key's primes do not multiply to its modulus");
        }
        if (!invertsModulo(e, key.getPrimeExponentP(), p.subtract(BigInteger.ONE))
                || !invertsModulo(e, key.getPrimeExponentQ(), q.subtract(BigInteger.ONE))) {
            throw new InvalidKeySpecException("the RSA key's CRT exponents do not match its public exponent");
        }
        if (!invertsModulo(q, key.getCrtCoefficient(), p)) {
            throw new InvalidKeySpecException("the RSA key's CRT coefficient is not the inverse of q modulo p");
        }
    }

    private static boolean invertsModulo(BigInteger a, BigInteger b, BigInteger modulus) {
        return a.multiply(b).mod(modulus).equals(BigInteger.ONE);
    }
}
