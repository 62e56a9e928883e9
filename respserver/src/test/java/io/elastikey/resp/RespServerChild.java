// RespServerChild -- main class of the durability test's child JVM: an ElasticStore behind a RespServer.
package io.elastikey.resp;

import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/** {@code RespServerChild DIR FSYNC}: serves until killed; prints {@code PORT <n>} once listening. */
public final class RespServerChild {
    private RespServerChild() {
    }

    public static void main(String[] args) throws Exception {
        ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(Path.of(args[0]))
                .fsyncPolicy(FsyncPolicy.valueOf(args[1])).memoryBudgetBytes(8 << 20).indexCapacity(64 * 1024)
                .segmentSizeBytes(8 << 20).build());
        RespServer server = RespServer.start(store, new InetSocketAddress("127.0.0.1", 0),
                RespLimits.defaults(store.maxValueSize()), 1);
        System.out.println("PORT " + server.address().getPort());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
