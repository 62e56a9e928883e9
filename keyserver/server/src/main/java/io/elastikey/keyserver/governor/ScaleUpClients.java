// ScaleUpClients -- picks the JNI client when its native library loads, the pure-Java one otherwise.
package io.elastikey.keyserver.governor;

import io.elastikey.scaleup.ScaleUpClient;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that chooses a {@link ScaleUpClient} implementation. Both implementations live
 * outside this module's compile-time view and have the constructor
 * {@code (Path socketPathOrNull, String clientName, Duration timeout)}, so they are found by name
 * and built by reflection, in order of preference:
 * <ol>
 *   <li>{@value #NATIVE}: libscaleup through JNI, the platform's own C API;
 *   <li>{@value #SOCKET}: the same wire protocol in pure Java.
 * </ol>
 * A candidate is skipped when its class is absent, or when loading or constructing it fails with
 * a {@link LinkageError} (no native library for this machine) or any other exception; the reason
 * is logged and the next one tried. When none works, {@link ScaleUpClientFactory#create} throws an
 * {@link IllegalStateException} listing every reason.
 */
public final class ScaleUpClients {

    static final String NATIVE = "io.elastikey.scaleup.jni.NativeScaleUpClient";
    static final String SOCKET = "io.elastikey.scaleup.socket.SocketScaleUpClient";
    private static final Logger LOG = LoggerFactory.getLogger(ScaleUpClients.class);

    private ScaleUpClients() {
    }

    /** The native client where it loads, else the socket client. */
    public static ScaleUpClientFactory discover() {
        return firstOf(List.of(NATIVE, SOCKET));
    }

    /** A factory that builds the first of {@code classNames} that loads and constructs. */
    static ScaleUpClientFactory firstOf(List<String> classNames) {
        return (socket, clientName, timeout) -> {
            List<String> failures = new ArrayList<>();
            for (String name : classNames) {
                try {
                    ScaleUpClient client = construct(name, socket, clientName, timeout);
                    LOG.info("scale-up client: {} (socket {}, client '{}', timeout {})", name,
                            socket == null ? "default" : socket, clientName, timeout);
                    return client;
                } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                    Throwable cause = e instanceof InvocationTargetException ite && ite.getCause() != null
                            ? ite.getCause() : e;
                    String reason = name + ": " + cause;
                    failures.add(reason);
                    LOG.info("scale-up client {} not used: {}", name, cause.toString());
                }
            }
            throw new IllegalStateException("no scale-up client could be made: " + String.join("; ", failures));
        };
    }

    private static ScaleUpClient construct(String className, Path socket, String clientName, Duration timeout)
            throws ReflectiveOperationException {
        Class<?> type = Class.forName(className, true, ScaleUpClients.class.getClassLoader());
        if (!ScaleUpClient.class.isAssignableFrom(type)) {
            throw new ClassCastException(className + " does not implement ScaleUpClient");
        }
        return (ScaleUpClient) type.getConstructor(Path.class, String.class, Duration.class)
                .newInstance(socket, clientName, timeout);
    }
}
