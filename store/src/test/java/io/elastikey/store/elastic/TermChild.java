// TermChild -- main class of ShutdownOnTermTest's child JVM: a store closed by its own shutdown hook, slowly.
package io.elastikey.store.elastic;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code TermChild DIR}: opens the store, writes a key, prints {@code READY} and waits. On SIGTERM its shutdown hook
 * (as {@code store serve}'s and the key server's) waits a moment, reads the key and closes the store, then prints
 * {@code CLOSED <value>}; or {@code FAILED <exception>} when something closed the store's files first.
 */
public final class TermChild {
    private TermChild() {
    }

    public static void main(String[] args) throws Exception {
        ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(Path.of(args[0])).memoryBudgetBytes(0)
                .indexCapacity(10_000).fsyncPolicy(FsyncPolicy.NEVER).build());
        store.put(key(), "v1".getBytes(StandardCharsets.UTF_8));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Thread.sleep(500); // the other shutdown hooks of the JVM run meanwhile
                byte[] v = store.get(key());
                store.close();
                System.out.println("CLOSED " + new String(v, StandardCharsets.UTF_8));
            } catch (Throwable e) {
                System.out.println("FAILED " + e);
            }
            System.out.flush();
        }));
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    static byte[] key() {
        return "k".getBytes(StandardCharsets.UTF_8);
    }
}
