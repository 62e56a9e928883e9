// ResidencyPolicy -- which entries the memory tier holds when it is not big enough for all.
package io.elastikey.store.elastic;

/** How the in-memory tier chooses its entries. */
public enum ResidencyPolicy {
    /**
     * The reference report's seq-scale-up: on a resize, walk the in-storage table in order and
     * copy entries until the budget is full. Lookups never change what is in memory.
     */
    SEQUENTIAL,
    /**
     * Keep the most-accessed entries. Accesses are counted in a compact frequency sketch; a resize
     * loads the most frequent keys first, and a miss is admitted when it is more frequent than the
     * entry it would displace (TinyLFU). A skewed workload gets its hot set in memory.
     */
    FREQUENCY
}
