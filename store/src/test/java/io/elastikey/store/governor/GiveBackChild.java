// GiveBackChild -- a store with a governor in its own JVM, for GiveBackKernelTest: the process the agent puts in a cgroup.
package io.elastikey.store.governor;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GiveBackChild SOCKET DIR KEYS GRANT_MB listen|deaf}: opens a store of {@code KEYS} 4000-byte values with a
 * 4 MiB tier, asks the agent for {@code GRANT_MB} (the agent moves this process into its cgroup then), and only then
 * grows the tier to it, so the tier's memory is allocated, and charged, inside the cgroup (cgroup v1 does not move
 * charges made before the move). Then runs a governor that listens to the agent ({@code listen}) or one that does
 * not ({@code deaf}), and prints {@code budget=B entries=E} every 100 ms. On the line {@code verify} from stdin it
 * reads every value back and prints {@code verified N}; at the end of stdin it exits.
 */
public final class GiveBackChild {
    private static final long MIB = 1L << 20;
    private static final int VALUE_SIZE = 4000;

    private GiveBackChild() {
    }

    public static void main(String[] args) throws Exception {
        Path socket = Path.of(args[0]);
        int keys = Integer.parseInt(args[2]);
        long grantMb = Long.parseLong(args[3]);
        boolean listen = args[4].equals("listen");
        ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(Path.of(args[1])).memoryBudgetBytes(4 * MIB)
                .indexCapacity(keys).fsyncPolicy(FsyncPolicy.NEVER).averageKeySize(9).averageValueSize(VALUE_SIZE)
                .build());
        List<Map.Entry<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < keys; i++) { // in batches: the child's heap is small on purpose
            batch.add(Map.entry(NumberedStore.key(i), NumberedStore.value(i, VALUE_SIZE)));
            if (batch.size() == 500 || i == keys - 1) {
                store.putAll(batch);
                batch.clear();
            }
        }
        SocketScaleUpClient client = new SocketScaleUpClient(socket, "store", Duration.ofSeconds(10));
        ScaleUpResponse r = client.rescale(grantMb, "fill the tier");
        System.out.println("granted " + r.grantedMb() + " " + r.message());
        store.resize(grantMb * MIB).await(5, java.util.concurrent.TimeUnit.MINUTES);
        GovernorConfig config = GovernorConfig.builder().interval(Duration.ofMillis(100))
                .minBudgetBytes(grantMb * MIB).maxBudgetBytes(grantMb * MIB).reserveBytes(0)
                .shrinkAfter(Duration.ofHours(1)).cooldown(Duration.ofMillis(100)).build();
        MemoryGovernor governor = new MemoryGovernor(store, client, config);
        if (listen) {
            governor.start();
        }
        System.out.println("ready budget=" + store.stats().memoryBudgetBytes() + " entries="
                + store.stats().memoryEntries());
        Thread reporter = new Thread(() -> {
            while (true) {
                System.out.println("budget=" + store.stats().memoryBudgetBytes() + " entries="
                        + store.stats().memoryEntries() + " giveBacks=" + governor.giveBacks());
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        reporter.setDaemon(true);
        reporter.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals("verify")) {
                int right = 0;
                for (int k = 0; k < keys; k++) {
                    right += NumberedStore.matches(store.get(NumberedStore.key(k)), k, VALUE_SIZE) ? 1 : 0;
                }
                System.out.println("verified " + right);
            }
        }
        governor.stop();
        store.close();
    }
}
