// ListCommand -- `keys list`: one line per key, streamed from the store, never unsealing anything.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.keys.KeySummary;

import java.io.BufferedWriter;
import java.io.PrintWriter;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Prints keys as they come out of the store (no sorting, so nothing is held in memory): a million keys stream
 * through in constant memory. {@code --limit} stops the walk early.
 */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = {"List keys: key ID, type, certificates, creation time, names, tags.",
                "Streams in store order (unsorted) and copes with millions of keys; --limit stops early."})
final class ListCommand extends KeysSubcommand {
    @Option(names = "--limit", paramLabel = "N", description = "Print at most N keys.")
    long limit = Long.MAX_VALUE;

    @Option(names = "--tag", paramLabel = "TAG", description = "Only keys with this tag.")
    String tag;

    @Option(names = "--no-header", description = "Omit the header line.")
    boolean noHeader;

    @Override
    int run() {
        PrintWriter out = new PrintWriter(new BufferedWriter(out(), 1 << 16), false);
        long[] printed = {0};
        try (RepositoryLease lease = openRepository()) {
            KeyRepository keys = lease.keys();
            if (!noHeader) {
                out.println(String.format("%-64s  %-7s  %5s  %-20s  %s", "KEY ID", "TYPE", "CERTS", "CREATED",
                        "NAMES [TAGS]"));
            }
            keys.forEachKey(summary -> {
                if (printed[0] >= limit) {
                    return false;
                }
                if (tag == null || summary.tags().contains(tag)) {
                    out.println(line(summary));
                    printed[0]++;
                }
                return printed[0] < limit;
            });
            out.flush();
            if (!noHeader) {
                out().printf("%,d of %,d keys%n", printed[0], keys.count());
            }
        }
        return 0;
    }

    static String line(KeySummary key) {
        String names = String.join(",", key.names());
        String tags = key.tags().isEmpty() ? "" : " [" + String.join(",", key.tags().stream().sorted().toList()) + "]";
        return String.format("%-64s  %-7s  %5d  %-20s  %s%s", key.keyId(), key.type().cliName(), key.certificates(),
                DateTimeFormatter.ISO_INSTANT.format(key.created().truncatedTo(ChronoUnit.SECONDS)), names, tags);
    }
}
