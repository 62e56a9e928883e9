// ElasticStoreContractTest -- the shared KeyValueStore contract on an ElasticStore.
package io.elastikey.store.elastic;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.KeyValueStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class ElasticStoreContractTest extends KeyValueStoreContract {
    @TempDir
    Path dir;

    @Override
    protected KeyValueStore openEmpty() {
        return ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(1 << 20).indexCapacity(10_000)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(256 << 10).build());
    }
}
