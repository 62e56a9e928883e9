package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.pki.KeyType;
import java.math.BigInteger;
import java.security.KeyFactory;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.RSAPrivateCrtKeySpec;
import org.junit.jupiter.api.Test;

class RsaCrtCheckTest {
    private static final RSAPrivateCrtKey KEY = (RSAPrivateCrtKey) TestKeys.pair(KeyType.RSA_2048).getPrivate();

    @Test
    void aGeneratedKeyPasses() {
        assertThatCode(() -> RsaCrtCheck.check(KEY)).doesNotThrowAnyException();
    }

    @Test
    void primesThatDoNotMakeTheModulusFail() throws Exception {
        assertThatThrownBy(() -> RsaCrtCheck.check(with(KEY.getPrimeP().add(BigInteger.TWO), KEY.getPrimeExponentP(),
                KEY.getCrtCoefficient()))).isInstanceOf(InvalidKeySpecException.class).hasMessageContaining("primes");
    }

    @Test
    void aWrongCrtExponentFails() throws Exception {
        assertThatThrownBy(() -> RsaCrtCheck.check(with(KEY.getPrimeP(), KEY.getPrimeExponentP().add(BigInteger.ONE),
                KEY.getCrtCoefficient()))).isInstanceOf(InvalidKeySpecException.class).hasMessageContaining("exponents")
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage())
                        .doesNotContain(KEY.getPrimeExponentP().toString()));
    }

    @Test
    void aWrongCoefficientFails() throws Exception {
        assertThatThrownBy(() -> RsaCrtCheck.check(with(KEY.getPrimeP(), KEY.getPrimeExponentP(),
                KEY.getCrtCoefficient().add(BigInteger.ONE)))).isInstanceOf(InvalidKeySpecException.class)
                .hasMessageContaining("coefficient");
    }

    private static RSAPrivateCrtKey with(BigInteger p, BigInteger dP, BigInteger qInv) throws Exception {
        return (RSAPrivateCrtKey) KeyFactory.getInstance("RSA", "SunRsaSign").generatePrivate(new RSAPrivateCrtKeySpec(
                KEY.getModulus(), KEY.getPublicExponent(), KEY.getPrivateExponent(), p, KEY.getPrimeQ(), dP,
                KEY.getPrimeExponentQ(), qInv));
    }
}
