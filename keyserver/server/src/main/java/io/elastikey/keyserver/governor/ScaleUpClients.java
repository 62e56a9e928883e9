// ScaleUpClients -- picks the JNI client when its native library loads, the pure-Java one otherwise.
package io.elastikey.keyserver.governor;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.jni.NativeScaleUpClient;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that chooses a {@link ScaleUpClient} implementation. libscaleup through JNI comes first because it
 * is the platform's own C API, the one a disaggregated platform ships; where its library does not load (no build
 * for this OS or architecture) the pure-Java client speaks the same protocol. The choice and its reason are logged
 * once per server start.
 */
public final class ScaleUpClients {
    private static final Logger LOG = LoggerFactory.getLogger(ScaleUpClients.class);

    private ScaleUpClients() {
    }

    /** The native client where it loads, else the socket client. */
    public static ScaleUpClientFactory discover() {
        return ScaleUpClients::create;
    }

    private static ScaleUpClient create(Path socket, String clientName, Duration timeout) {
        try {
            ScaleUpClient client;
            try {
                client = new NativeScaleUpClient(socket, clientName, timeout);
            } catch (LinkageError e) {
                LOG.info("scale-up client: libscaleup does not load here ({}); using the pure-Java client", e.toString());
                client = new SocketScaleUpClient(socket, clientName, timeout);
            }
            LOG.info("scale-up client: {} (socket {}, client '{}', timeout {})", client.getClass().getSimpleName(),
                    socket == null ? "default" : socket, clientName, timeout);
            return client;
        } catch (ScaleUpException e) {
            throw new IllegalStateException("scale-up client settings: " + e.getMessage(), e);
        }
    }
}
