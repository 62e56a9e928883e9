// ScaleUpClientsTest -- the client choice: first implementation that loads and constructs, reasons when none does.
package io.elastikey.keyserver.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScaleUpClientsTest {

    private static final String PREFIX = ScaleUpClientsTest.class.getName() + "$";

    /** Stands in for an implementation with the agreed constructor. */
    public static final class Working implements ScaleUpClient {
        final Path socket;
        final String name;
        final Duration timeout;

        public Working(Path socket, String name, Duration timeout) {
            this.socket = socket;
            this.name = name;
            this.timeout = timeout;
        }

        @Override public String clientName() { return name; }
        @Override public ScaleUpResponse rescale(long memoryMb, String reason) { throw new UnsupportedOperationException(); }
        @Override public ScaleUpResponse status() { throw new UnsupportedOperationException(); }
        @Override public ScaleUpResponse release() { throw new UnsupportedOperationException(); }
        @Override public void close() { }
    }

    /** Stands in for the JNI client on a machine without its native library. */
    public static final class NoNativeLibrary implements ScaleUpClient {
        static {
            if (Boolean.parseBoolean("true")) {
                throw new UnsatisfiedLinkError("no scaleup in java.library.path");
            }
        }

        public NoNativeLibrary(Path socket, String name, Duration timeout) {
        }

        @Override public String clientName() { return ""; }
        @Override public ScaleUpResponse rescale(long memoryMb, String reason) { return null; }
        @Override public ScaleUpResponse status() { return null; }
        @Override public ScaleUpResponse release() { return null; }
        @Override public void close() { }
    }

    /** An implementation whose constructor refuses its arguments. */
    public static final class Refusing extends NoNativeLibraryFree {
        public Refusing(Path socket, String name, Duration timeout) {
            throw new IllegalArgumentException("client name too long");
        }
    }

    /** Base without a failing static initializer. */
    public abstract static class NoNativeLibraryFree implements ScaleUpClient {
        @Override public String clientName() { return ""; }
        @Override public ScaleUpResponse rescale(long memoryMb, String reason) { return null; }
        @Override public ScaleUpResponse status() { return null; }
        @Override public ScaleUpResponse release() { return null; }
        @Override public void close() { }
    }

    @Test
    void thePreferredOrderIsNativeThenSocket() {
        assertThat(List.of(ScaleUpClients.NATIVE, ScaleUpClients.SOCKET)).containsExactly(
                "io.elastikey.scaleup.jni.NativeScaleUpClient", "io.elastikey.scaleup.socket.SocketScaleUpClient");
    }

    @Test
    void takesTheFirstThatLoadsPassingTheSettings() {
        ScaleUpClient client = ScaleUpClients.firstOf(List.of("no.such.Client", PREFIX + "NoNativeLibrary",
                PREFIX + "Refusing", PREFIX + "Working")).create(Path.of("/run/scaleupd.sock"), "keyserver",
                Duration.ofMillis(500));
        assertThat(client).isInstanceOf(Working.class);
        Working w = (Working) client;
        assertThat(w.socket).isEqualTo(Path.of("/run/scaleupd.sock"));
        assertThat(w.name).isEqualTo("keyserver");
        assertThat(w.timeout).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void noneThatLoadsIsAnErrorListingEveryReason() {
        ScaleUpClientFactory factory = ScaleUpClients.firstOf(List.of("no.such.Client", PREFIX + "NoNativeLibrary",
                PREFIX + "Refusing", "java.lang.String"));
        assertThatThrownBy(() -> factory.create(null, "keyserver", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no.such.Client: java.lang.ClassNotFoundException")
                .hasMessageContaining("no scaleup in java.library.path")
                .hasMessageContaining("client name too long")
                .hasMessageContaining("does not implement ScaleUpClient");
    }
}
