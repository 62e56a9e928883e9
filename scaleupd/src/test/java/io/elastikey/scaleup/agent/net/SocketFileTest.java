package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The socket path: mode 0660, a stale socket replaced, a live agent or a plain file left alone. */
class SocketFileTest {
    @TempDir
    Path dir;

    private AgentConfig config(Path socket) {
        return AgentConfig.builder().socketPath(socket).ledgerFile(dir.resolve("ledger.json")).build();
    }

    @Test
    void theSocketIsMode0660AndRemovedOnClose() throws Exception {
        Path socket = dir.resolve("run/a.sock");
        try (ScaleUpAgent agent = ScaleUpAgent.start(config(socket))) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-rw----");
        }
        assertThat(socket).doesNotExist();
    }

    @Test
    void aStaleSocketIsReplaced() throws Exception {
        Path socket = dir.resolve("a.sock");
        try (ServerSocketChannel crashed = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            crashed.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();
        try (ScaleUpAgent agent = ScaleUpAgent.start(config(socket))) {
            assertThat(agent.pool().poolMb()).isEqualTo(4096);
        }
    }

    @Test
    void aLiveAgentOrAPlainFileIsLeftAlone() throws Exception {
        Path socket = dir.resolve("a.sock");
        try (ScaleUpAgent first = ScaleUpAgent.start(config(socket))) {
            assertThatThrownBy(() -> ScaleUpAgent.start(config(socket)))
                    .hasMessageContaining("another agent is listening on " + socket);
            assertThat(socket).exists();
        }
        Path plain = dir.resolve("plain");
        Files.writeString(plain, "precious");
        assertThatThrownBy(() -> ScaleUpAgent.start(config(plain))).hasMessageContaining("is not a socket");
        assertThat(Files.readString(plain)).isEqualTo("precious");
    }
}
