// AckedWriter -- writes numbered values into one store during chaos and remembers exactly which ones were acknowledged.
package io.elastikey.perf.soak;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.redis.RedisStore;

/**
 * The "no acknowledged write lost" check. A thread puts {@code w:<name>:<n>} = {@link #value}{@code (n)} (a few
 * KiB, derived from n, so a read proves the content, not just the presence) at a steady pace through the store
 * module's {@link RedisStore} (Lettuce, with its timeouts and reconnects), one put at a time. A put that returns
 * counts as acknowledged, and its number is kept; one that throws is counted by its message, the first of each kind
 * kept, so the report shows what a writer is told when the disk is full or Redis is gone. {@link #verify} reads
 * every acknowledged value back, through a fresh connection, after the chaos.
 */
final class AckedWriter implements AutoCloseable {
    static final int VALUE_BYTES = 4096;

    private final String name;
    private final String location;
    private final long periodNanos;
    private final LongSupplier second;
    private final ConcurrentLinkedQueue<Long> acknowledged = new ConcurrentLinkedQueue<>();
    private final Map<String, Long> failures = new ConcurrentHashMap<>();
    private final Map<Long, long[]> perSecond = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopped;
    private volatile long lastAckSecond = -1;
    private KeyValueStore store;

    /**
     * @param location  a Redis URI (Redis itself, or the RESP server in front of an ElasticStore)
     * @param rate      puts per second at most
     * @param second    the run's current second, to place acknowledgements and failures on the timeline
     */
    AckedWriter(String name, String location, int rate, LongSupplier second) {
        this.name = name;
        this.location = location;
        this.periodNanos = TimeUnit.SECONDS.toNanos(1) / rate;
        this.second = second;
        this.thread = new Thread(this::run, "acked-writer-" + name);
        thread.setDaemon(true);
    }

    AckedWriter start() {
        store = RedisStore.open(location + (location.contains("?") ? "&" : "?") + "timeout=1s");
        thread.start();
        return this;
    }

    private void run() {
        long due = System.nanoTime();
        while (!stopped) {
            long n = next.getAndIncrement();
            long s = second.getAsLong();
            try {
                store.put(key(n), value(n));
                acknowledged.add(n);
                lastAckSecond = s;
                perSecond.computeIfAbsent(s, k -> new long[2])[0]++;
            } catch (RuntimeException e) {
                failures.merge(kind(e), 1L, Long::sum);
                perSecond.computeIfAbsent(s, k -> new long[2])[1]++;
            }
            due += periodNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            } else {
                due = System.nanoTime(); // behind (a timeout): no burst to catch up
            }
        }
    }

    /** The exception's message, trimmed of numbers that make every one distinct (offsets, segment names). */
    static String kind(Throwable e) {
        Throwable root = e;
        String text = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String rootMessage = root == e || root.getMessage() == null ? "" : root.getMessage();
        String message = text + (text.contains(rootMessage) ? "" : " (" + rootMessage + ")");
        // RedisStore names the store first ("Redis redis://127.0.0.1:6379: SET failed: ..."): the kind is the rest
        return message.replaceFirst("^Redis \\S+: ", "").replaceAll("\\d{3,}", "N").replaceAll("\\s+", " ")
                .strip();
    }

    static byte[] key(String name, long n) {
        return ("w:" + name + ":" + n).getBytes(StandardCharsets.US_ASCII);
    }

    private byte[] key(long n) {
        return key(name, n);
    }

    /** {@value #VALUE_BYTES} bytes that only {@code n} gives. */
    static byte[] value(long n) {
        byte[] v = new byte[VALUE_BYTES];
        long x = n * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < v.length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            v[i] = (byte) x;
        }
        return v;
    }

    String name() {
        return name;
    }

    long acknowledgedCount() {
        return acknowledged.size();
    }

    long attempted() {
        return next.get();
    }

    Map<String, Long> failures() {
        return new LinkedHashMap<>(failures);
    }

    /** The first second at or after {@code from} with an acknowledged write, or -1. */
    long firstAckAtOrAfter(long from) {
        return perSecond.entrySet().stream().filter(e -> e.getKey() >= from && e.getValue()[0] > 0)
                .mapToLong(Map.Entry::getKey).min().orElse(-1);
    }

    /** {acknowledged, failed} in second {@code s}. */
    long[] inSecond(long s) {
        return perSecond.getOrDefault(s, new long[2]).clone();
    }

    long lastAckSecond() {
        return lastAckSecond;
    }

    /** Reads every acknowledged value back through a new connection: {acknowledged, intact, missing, wrong}. */
    long[] verify() {
        List<Long> acked = List.copyOf(acknowledged);
        long intact = 0;
        long missing = 0;
        long wrong = 0;
        try (KeyValueStore reader = RedisStore.open(location + (location.contains("?") ? "&" : "?")
                + "timeout=10s")) {
            for (long n : acked) {
                byte[] v = reader.get(key(n));
                if (v == null) {
                    missing++;
                } else if (!Arrays.equals(v, value(n))) {
                    wrong++;
                } else {
                    intact++;
                }
            }
        }
        return new long[] {acked.size(), intact, missing, wrong};
    }

    /** Stops writing; a put under way finishes (or times out) first. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join(TimeUnit.SECONDS.toMillis(15));
        if (store != null) {
            store.close();
        }
    }
}
