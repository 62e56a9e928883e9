// ConfigOptionsTest -- a command's shortcut flags (keyserver --store) and --set together, in either order.
package io.elastikey.protocol.config;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigOptionsTest {

    /** A command with a shortcut flag, as the key server's {@code --store} is one for {@code --set store=...}. */
    @Command(name = "server")
    static final class Server {
        @Mixin
        ConfigOptions options = new ConfigOptions();

        @Option(names = "--store")
        void store(String location) {
            options.set("store", location);
        }
    }

    private static ConfigSource parse(String... args) {
        Server server = new Server();
        new CommandLine(server).parseArgs(args);
        return server.options.source();
    }

    @Test
    void aShortcutFlagBeforeSetIsKept() {
        ConfigSource source = parse("--store", "redis://127.0.0.1:6390", "--set", "listen=127.0.0.1:8444");

        assertThat(source.get("store")).isEqualTo("redis://127.0.0.1:6390");
        assertThat(source.get("listen")).isEqualTo("127.0.0.1:8444");
    }

    @Test
    void aShortcutFlagAfterSetIsKept() {
        ConfigSource source = parse("--set", "listen=127.0.0.1:8444", "--store", "redis://127.0.0.1:6390");

        assertThat(source.get("store")).isEqualTo("redis://127.0.0.1:6390");
        assertThat(source.get("listen")).isEqualTo("127.0.0.1:8444");
    }
}
