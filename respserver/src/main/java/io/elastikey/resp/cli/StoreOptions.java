// StoreOptions -- the ElasticStore options `store serve` and `store load` share, as a picocli mixin.
package io.elastikey.resp.cli;

import io.elastikey.resp.Sizes;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.elastikey.store.memory.CgroupLimit;
import io.elastikey.store.memory.MemoryTierSizing;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** Where the store lives and how it is opened. */
final class StoreOptions {
    @Option(names = "--data", description = "Data directory of the ElasticStore.")
    Path data;

    @Option(names = "--memory", description = "Memory budget, e.g. 512m, 1g (default: 1g, or under a cgroup memory "
            + "limit what fits under it; see docs/store.md).")
    String memory;

    private long automatic = -1;

    @Option(names = "--fsync", defaultValue = "GROUP",
            description = "When a write counts as done: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    FsyncPolicy fsync;

    @Option(names = "--index-capacity", defaultValue = "1048576",
            description = "Keys the index is laid out for when created (default: ${DEFAULT-VALUE}).")
    long indexCapacity;

    /** {@code --direct-reads}: whether lookups that miss memory read past the page cache. */
    enum DirectReads { AUTO, ON, OFF }

    @Option(names = "--direct-reads", defaultValue = "AUTO", paramLabel = "auto|on|off",
            description = "Read values that miss memory past the page cache (O_DIRECT): ${COMPLETION-CANDIDATES}; "
                    + "auto (default) does so under a cgroup memory limit, which also charges the page cache to "
                    + "this process.")
    DirectReads directReadsOption;

    @Option(names = "--no-location-table",
            description = "Find the records of values that miss memory through the persisted index alone, without "
                    + "its copy in memory (16 bytes a slot, about 32 MiB a million keys, beside --memory; "
                    + "docs/store.md). A store reading past the page cache (--direct-reads) has none anyway.")
    boolean noLocationTable;

    @Option(names = "--max-value-size", defaultValue = "1048576",
            description = "Largest value accepted, bytes (default: ${DEFAULT-VALUE}).")
    int maxValueSize;

    ElasticStoreConfig config() {
        if (data == null) {
            throw new IllegalArgumentException("--data DIR is required");
        }
        return ElasticStoreConfig.builder(data).memoryBudgetBytes(memoryBytes()).fsyncPolicy(fsync)
                .indexCapacity(indexCapacity).maxValueSize(maxValueSize).directReads(directReads())
                .locationTable(!noLocationTable).build();
    }

    /** {@code --direct-reads}: on, off, or (auto) on when a cgroup memory limit binds this process. */
    boolean directReads() {
        return switch (directReadsOption) {
            case ON -> true;
            case OFF -> false;
            case AUTO -> CgroupLimit.system().binding().isPresent();
        };
    }

    /** The memory budget in bytes: {@code --memory}, or what fits this process's memory limit (computed once). */
    long memoryBytes() {
        if (memory != null) {
            return parseSize(memory);
        }
        if (automatic < 0) {
            automatic = MemoryTierSizing.forThisProcess(directReads());
        }
        return automatic;
    }

    /** The budget and how it was chosen, for the line the server prints when ready. */
    String memoryDescription() {
        if (memory != null) {
            return memory;
        }
        String why = CgroupLimit.system().binding()
                .map(l -> "to fit the " + Sizes.format(l.bytes()) + " limit in " + l.file() + " with a "
                        + (Runtime.getRuntime().maxMemory() >> 20) + " MiB heap")
                .orElse("no memory limit");
        return Sizes.format(memoryBytes()) + " (" + why + ")";
    }

    /** {@code 1g}, {@code 512m}, {@code 64k} or plain bytes ({@link Sizes}). */
    static long parseSize(String s) {
        return Sizes.parse("--memory", s);
    }
}
