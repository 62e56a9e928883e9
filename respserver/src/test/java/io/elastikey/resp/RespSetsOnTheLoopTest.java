package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plain SETs are written on the event loop without waiting for an fsync ({@link ReadyConnections#runWrites}); these
 * tests hold the parts that must not change with that: a SET's {@code +OK} still comes only after the durability its
 * fsync policy promises, a store that fails the write answers every SET of the group with an error and keeps the
 * connection, and a bad entry among good ones refuses only itself.
 */
class RespSetsOnTheLoopTest {
    /** The store's limit on a value; the protocol's own limit on a bulk string (64 KiB) is far above it. */
    private static final int MAX_VALUE = 1024;

    @TempDir
    Path dir;

    private ElasticStore open(FsyncPolicy fsync) {
        return ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(16 << 20).fsyncPolicy(fsync)
                .maxValueSize(MAX_VALUE).indexCapacity(64 * 1024).segmentSizeBytes(8 << 20).build());
    }

    private static RespServer serve(ElasticStore store) throws InterruptedException {
        return RespServer.start(store, new InetSocketAddress("127.0.0.1", 0), RespLimits.defaults(64 * 1024), 1,
                RespOptions.defaults());
    }

    @Test
    void underGroupCommitEachOkComesAfterAnFsyncThatCoversIt() throws Exception {
        try (ElasticStore store = open(FsyncPolicy.GROUP); RespServer server = serve(store);
             RawClient c = new RawClient(server.address())) {
            for (int i = 0; i < 50; i++) {
                long before = store.logFsyncs();
                assertThat(c.call("SET", "g:" + i, "value-" + i)).isEqualTo("OK");
                assertThat(store.logFsyncs()).as("fsyncs once SET %d was answered", i).isGreaterThan(before);
            }
            assertThat(RawClient.text(c.call("GET", "g:49"))).isEqualTo("value-49");
        }
    }

    @Test
    void withoutFsyncTheSetsAreAnsweredAndReadBackWithNone() throws Exception {
        try (ElasticStore store = open(FsyncPolicy.NEVER); RespServer server = serve(store);
             RawClient c = new RawClient(server.address())) {
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < 500; i++) {
                burst.writeBytes(RawClient.encode("SET", "n:" + i, "value-" + i));
                burst.writeBytes(RawClient.encode("GET", "n:" + i));
            }
            c.send(burst.toByteArray());
            for (int i = 0; i < 500; i++) {
                assertThat(c.read()).isEqualTo("OK");
                assertThat(RawClient.text(c.read())).isEqualTo("value-" + i);
            }
            assertThat(store.logFsyncs()).isZero();
        }
    }

    @Test
    void everySecondTheSetsAreAnsweredAtOnceAndTheLogIsFsyncedBehindThem() throws Exception {
        try (ElasticStore store = open(FsyncPolicy.EVERYSEC); RespServer server = serve(store);
             RawClient c = new RawClient(server.address())) {
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < 500; i++) {
                burst.writeBytes(RawClient.encode("SET", "e:" + i, "value-" + i));
            }
            c.send(burst.toByteArray());
            for (int i = 0; i < 500; i++) {
                assertThat(c.read()).isEqualTo("OK");
            }
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (store.logFsyncs() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(store.logFsyncs()).as("the background fsync, with no writer waiting for it").isPositive();
            assertThat(RawClient.text(c.call("GET", "e:499"))).isEqualTo("value-499");
        }
    }

    @Test
    void aStoreThatFailsTheWriteAnswersEachSetWithAnErrorAndTheConnectionStays() throws Exception {
        ElasticStore store = open(FsyncPolicy.GROUP);
        try (RespServer server = serve(store); RawClient c = new RawClient(server.address())) {
            assertThat(c.call("SET", "before", "v")).isEqualTo("OK");
            store.close(); // every write now fails
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < 20; i++) {
                burst.writeBytes(RawClient.encode("SET", "after:" + i, "v"));
            }
            c.send(burst.toByteArray());
            for (int i = 0; i < 20; i++) {
                Object reply = c.read();
                assertThat(reply).isInstanceOf(RawClient.Error.class);
                assertThat(((RawClient.Error) reply).text()).startsWith("ERR store: ");
            }
            assertThat(c.call("PING")).isEqualTo("PONG");
        } finally {
            store.close();
        }
    }

    @Test
    void aValueOverTheLimitAmongGoodOnesRefusesOnlyItself() throws Exception {
        try (ElasticStore store = open(FsyncPolicy.GROUP); RespServer server = serve(store);
             RawClient c = new RawClient(server.address())) {
            byte[] tooLarge = new byte[MAX_VALUE + 1];
            c.send(concat(RawClient.encode("SET", "a", "1"), RawClient.encode("SET", "b", tooLarge),
                    RawClient.encode("SET", "c", "3")));
            assertThat(c.read()).isEqualTo("OK");
            Object refused = c.read();
            assertThat(refused).isInstanceOf(RawClient.Error.class);
            assertThat(((RawClient.Error) refused).text()).startsWith("ERR ").doesNotStartWith("ERR store: ");
            assertThat(c.read()).isEqualTo("OK");
            assertThat(store.get("a".getBytes(StandardCharsets.UTF_8))).isEqualTo("1".getBytes(StandardCharsets.UTF_8));
            assertThat(store.get("b".getBytes(StandardCharsets.UTF_8))).isNull();
            assertThat(store.get("c".getBytes(StandardCharsets.UTF_8))).isEqualTo("3".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
