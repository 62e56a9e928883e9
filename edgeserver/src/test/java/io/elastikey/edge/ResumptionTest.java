package io.elastikey.edge;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A resumed handshake (a session ticket from an earlier one) makes no key-server call: the client says it
 * resumed, the edge counts a resumed handshake, and the key server's operation count does not move.
 */
class ResumptionTest {
    @TempDir
    static Path root;
    static EdgeFixture suite;
    static KeyServer keyServer;
    static EdgeServer edge;

    @BeforeAll
    static void start() throws Exception {
        suite = EdgeFixture.create(root);
        keyServer = suite.startKeyServer(0, 0);
        SampleOrigin origin = suite.startOrigin();
        edge = suite.startEdge(List.of(keyServer.address()), origin, Map.of());
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({
            "ec.edge.test,  -tls1_3, ",
            "rsa.edge.test, -tls1_3, ",
            "ec.edge.test,  -tls1_2, ECDHE-ECDSA-AES128-GCM-SHA256",
            "rsa.edge.test, -tls1_2, AES128-GCM-SHA256",
    })
    void aResumedHandshakeMakesNoKeyServerCall(String name, String version, String cipher) throws Exception {
        String session = root.resolve(name + version + ".session").toString();
        long operations = EdgeFixture.keyServerOperations(keyServer.adminAddress());
        long full = edge.metrics().handshakes(false);
        long resumed = edge.metrics().handshakes(true);

        Tools.Result first = Tools.sClient(suite, edge, name, version, cipher, session, null);
        assertThat(first.output()).contains("HTTP/1.1 200 OK").contains("New, TLSv1.");
        assertThat(EdgeFixture.keyServerOperations(keyServer.adminAddress())).isEqualTo(operations + 1);

        for (int i = 0; i < 3; i++) {
            Tools.Result again = Tools.sClient(suite, edge, name, version, cipher, null, session);
            assertThat(again.output()).as(again.output()).contains("Reused, TLSv1.").contains("HTTP/1.1 200 OK");
        }
        assertThat(EdgeFixture.keyServerOperations(keyServer.adminAddress())).isEqualTo(operations + 1);
        assertThat(edge.metrics().handshakes(false)).isEqualTo(full + 1);
        assertThat(edge.metrics().handshakes(true)).isEqualTo(resumed + 3);
        assertThat(EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_handshakes_total{protocol=\"TLSv1."
                + version.charAt(version.length() - 1) + "\",type=\"resumed\"")).isGreaterThanOrEqualTo(3);
    }
}
