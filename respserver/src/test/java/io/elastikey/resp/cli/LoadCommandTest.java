// LoadCommandTest -- `store load` writes exactly the keys it names, into a directory or over RESP, and says when not.
package io.elastikey.resp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.resp.RespLimits;
import io.elastikey.resp.RespOptions;
import io.elastikey.resp.RespServer;
import io.elastikey.resp.RespUsers;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class LoadCommandTest {

    @TempDir
    Path tmp;

    private static int load(String... args) throws Exception {
        LoadCommand command = new LoadCommand();
        new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args); // as the launcher does
        return command.call();
    }

    private static ElasticStore open(Path dir) {
        return ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(8 << 20).indexCapacity(16 * 1024)
                .segmentSizeBytes(4 << 20).fsyncPolicy(FsyncPolicy.GROUP).build());
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] xs(int n) {
        byte[] v = new byte[n];
        Arrays.fill(v, (byte) 'x');
        return v;
    }

    @Test
    void intoADirectoryEveryKeyOfTheFormatWithItsValueAndNoOther() throws Exception {
        Path dir = tmp.resolve("store");
        // 2,500 in batches of 1,000: the last batch is a partial one
        assertThat(load("--data", dir.toString(), "--count", "2500", "--value-size", "100", "--batch", "1000",
                "--key-format", "k-%05d")).isZero();

        try (ElasticStore store = open(dir)) {
            assertThat(store.size()).isEqualTo(2500);
            assertThat(store.get(ascii("k-00000"))).isEqualTo(xs(100));
            assertThat(store.get(ascii("k-02499"))).isEqualTo(xs(100));
            assertThat(store.get(ascii("k-02500"))).isNull();
        }
    }

    /** A RespServer over {@code store} on a free loopback port; {@code store load --to} takes its address. */
    private static RespServer serve(ElasticStore store, int maxValueSize, RespOptions options) throws Exception {
        return RespServer.start(store, new InetSocketAddress("127.0.0.1", 0), RespLimits.defaults(maxValueSize), 1,
                options);
    }

    private static String to(RespServer server) {
        return "127.0.0.1:" + server.address().getPort();
    }

    @Test
    void overRespToARunningServerWithRedisBenchmarksKeyNames() throws Exception {
        try (ElasticStore store = open(tmp.resolve("served"))) {
            try (RespServer server = serve(store, 64 * 1024, RespOptions.defaults())) {
                assertThat(load("--to", to(server), "--count", "1234", "--value-size", "4096", "--batch", "500"))
                        .isZero();
            }
            assertThat(store.size()).isEqualTo(1234);
            assertThat(store.get(ascii("key:000000000000"))).isEqualTo(xs(4096));
            assertThat(store.get(ascii("key:000000001233"))).isEqualTo(xs(4096));
        }
    }

    @Test
    void aServerThatRefusesTheSetsStopsTheLoadWithItsAnswer() throws Exception {
        try (ElasticStore store = open(tmp.resolve("guarded"))) {
            RespOptions password = RespOptions.builder().users(RespUsers.builder().requirePass("s3cret").build())
                    .build();
            try (RespServer server = serve(store, 64 * 1024, password)) {
                assertThatThrownBy(() -> load("--to", to(server), "--count", "10", "--value-size", "8"))
                        .isInstanceOf(IOException.class)
                        .hasMessageStartingWith("SET of key 0 answered -NOAUTH");
            }
            assertThat(store.size()).isZero();
        }
    }

    @Test
    void aValueOverTheServersLimitIsReportedNotLoaded() throws Exception {
        try (ElasticStore store = open(tmp.resolve("limited"))) {
            try (RespServer server = serve(store, 1024, RespOptions.defaults())) {
                assertThatThrownBy(() -> load("--to", to(server), "--count", "3", "--value-size", "2048"))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("key 0");
            }
            assertThat(store.size()).isZero();
        }
    }

    @Test
    void exactlyOneDestinationIsAsked() {
        assertThatThrownBy(() -> load("--count", "1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("give exactly one of --data DIR and --to HOST:PORT");
        assertThatThrownBy(() -> load("--count", "1", "--data", tmp.toString(), "--to", "127.0.0.1:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("give exactly one of --data DIR and --to HOST:PORT");
    }
}
