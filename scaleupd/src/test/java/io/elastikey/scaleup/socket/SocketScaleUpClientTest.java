// SocketScaleUpClientTest -- the shared contract, for the pure-Java client.
package io.elastikey.scaleup.socket;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpClientContract;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpException.Reason;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class SocketScaleUpClientTest extends ScaleUpClientContract {

    @Override
    protected ScaleUpClient connect(Path socket, String client, Duration timeout) throws ScaleUpException {
        return new SocketScaleUpClient(socket, client, timeout);
    }

    @Test
    void aNullPathMeansTheEnvironmentOrTheDefault() throws Exception {
        try (SocketScaleUpClient c = new SocketScaleUpClient(null, "keyserver", TIMEOUT)) {
            String env = System.getenv(SocketScaleUpClient.SOCKET_ENV);
            assertThat(c.socketPath()).isEqualTo(env != null && !env.isEmpty() ? Path.of(env)
                    : Path.of("/tmp/elastikey-scaleupd.sock"));
        }
    }

    @Test
    void aZeroTimeoutOrAnOverlongPathIsAnInvalidArgument() {
        assertReason(() -> new SocketScaleUpClient(agent.socketPath(), "keyserver", Duration.ZERO),
                Reason.INVALID_ARGUMENT);
        assertReason(() -> new SocketScaleUpClient(Path.of("/tmp/" + "p".repeat(120)), "keyserver", TIMEOUT),
                Reason.INVALID_ARGUMENT);
    }
}
