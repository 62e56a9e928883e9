// ClientAuthenticationHandlerTest -- what a refused handshake's log line says.
package io.elastikey.keyserver.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.CertificateException;
import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.Test;

class ClientAuthenticationHandlerTest {
    @Test
    void aRefusalIsLoggedWithItsInnermostCauseNotOpenSslsGeneralOne() {
        SSLHandshakeException outer = new SSLHandshakeException("General OpenSslEngine problem");
        outer.initCause(new CertificateException("no client certificate",
                new CertificateException("PKIX path building failed: unable to find valid certification path")));

        assertThat(ClientAuthenticationHandler.reason(outer)).isEqualTo(
                "CertificateException: PKIX path building failed: unable to find valid certification path");
        assertThat(ClientAuthenticationHandler.reason(new SSLHandshakeException(null)))
                .isEqualTo("SSLHandshakeException");
    }
}
