// StoreOptions -- the ElasticStore options `store serve` and `store load` share, as a picocli mixin.
package io.elastikey.resp.cli;

import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Locale;

/** Where the store lives and how it is opened. */
final class StoreOptions {
    @Option(names = "--data", description = "Data directory of the ElasticStore.")
    Path data;

    @Option(names = "--memory", defaultValue = "1g", description = "Memory budget, e.g. 512m, 1g (default: ${DEFAULT-VALUE}).")
    String memory;

    @Option(names = "--fsync", defaultValue = "GROUP",
            description = "When a write counts as done: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    FsyncPolicy fsync;

    @Option(names = "--index-capacity", defaultValue = "1048576",
            description = "Keys the index is laid out for when created (default: ${DEFAULT-VALUE}).")
    long indexCapacity;

    @Option(names = "--max-value-size", defaultValue = "1048576",
            description = "Largest value accepted, bytes (default: ${DEFAULT-VALUE}).")
    int maxValueSize;

    ElasticStoreConfig config() {
        if (data == null) {
            throw new IllegalArgumentException("--data DIR is required");
        }
        return ElasticStoreConfig.builder(data).memoryBudgetBytes(parseSize(memory)).fsyncPolicy(fsync)
                .indexCapacity(indexCapacity).maxValueSize(maxValueSize).build();
    }

    /** {@code 1g}, {@code 512m}, {@code 64k} or plain bytes. */
    static long parseSize(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
        switch (last) {
            case 'k' -> unit = 1L << 10;
            case 'm' -> unit = 1L << 20;
            case 'g' -> unit = 1L << 30;
            case 't' -> unit = 1L << 40;
            default -> { }
        }
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
        try {
            return Math.multiplyExact(Long.parseLong(digits), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a size: '" + s + "' (expected e.g. 512m or 1g)");
        }
    }
}
