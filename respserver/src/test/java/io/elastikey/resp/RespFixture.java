// RespFixture -- a RespServer over an ElasticStore in a temporary directory, on a free loopback port.
package io.elastikey.resp;

import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.elastikey.store.elastic.ResizeOperation;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

final class RespFixture implements AutoCloseable {
    static {
        // Every buffer tracked: a leaked request or reply shows as a "LEAK:" error in the test output.
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.PARANOID);
    }

    final ElasticStore store;
    final RespServer server;

    RespFixture(Path dir) throws InterruptedException {
        this(dir, RespLimits.defaults(64 * 1024));
    }

    RespFixture(Path dir, RespLimits limits) throws InterruptedException {
        this(dir, limits, 16 << 20);
    }

    RespFixture(Path dir, RespLimits limits, long memoryBudgetBytes) throws InterruptedException {
        this(dir, limits, memoryBudgetBytes, RespOptions.defaults(), "127.0.0.1");
    }

    /** A store of 16 MiB served with {@code options} on {@code host} (0.0.0.0: every address). */
    RespFixture(Path dir, RespOptions options, String host) throws InterruptedException {
        this(dir, RespLimits.defaults(64 * 1024), 16 << 20, options, host);
    }

    RespFixture(Path dir, RespLimits limits, long memoryBudgetBytes, RespOptions options, String host)
            throws InterruptedException {
        store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(memoryBudgetBytes)
                .fsyncPolicy(FsyncPolicy.GROUP).maxValueSize(limits.maxBulkBytes()).indexCapacity(64 * 1024)
                .segmentSizeBytes(8 << 20).build());
        awaitFill(store);
        server = RespServer.start(store, new InetSocketAddress(host, 0), limits, 1, options);
    }

    /**
     * Waits for the fill that follows the open, so a test's first writes land in the tier its lookups will use (an
     * empty store's fill takes milliseconds; one racing a test's pipelined lookups yields to them and took a second).
     */
    private static void awaitFill(ElasticStore store) throws InterruptedException {
        ResizeOperation fill = store.lastResize();
        try {
            if (fill != null && fill.await(30, TimeUnit.SECONDS) != ResizeOperation.State.DONE) {
                throw new IllegalStateException("the store's fill after open ended " + fill.state(), fill.failure());
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("the store's fill after open still runs after 30 s", e);
        }
    }

    /** Bounds for the small test stores: 4 MiB to 64 MiB, the machine's memory as it is. */
    static ResizeBounds smallBounds() {
        return ResizeBounds.of(io.elastikey.store.governor.GovernorConfig.builder().minBudgetBytes(4 << 20)
                .maxBudgetBytes(64 << 20).build());
    }

    InetSocketAddress address() {
        return server.address();
    }

    int port() {
        return server.address().getPort();
    }

    RawClient client() throws java.io.IOException {
        return new RawClient(address());
    }

    @Override
    public void close() {
        server.close();
        store.close();
    }
}
