package io.elastikey.resp;

import static io.elastikey.resp.RawClient.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pipelined commands are answered in request order, whatever their mix and however they are batched. */
class RespPipeliningTest {
    @TempDir
    Path dir;

    @Test
    void thousandMixedCommandsAnsweredInOrder() throws Exception {
        try (RespFixture f = new RespFixture(dir); RawClient c = f.client()) {
            SplittableRandom random = new SplittableRandom(7);
            Map<String, String> model = new HashMap<>();
            List<Object> expected = new ArrayList<>();
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            for (int i = 0; i < 1000; i++) {
                String key = "p:" + random.nextInt(50);
                int op = random.nextInt(10);
                if (op < 4) {
                    String value = "v" + i;
                    wire.writeBytes(RawClient.encode("SET", key, value));
                    model.put(key, value);
                    expected.add("OK");
                } else if (op < 9) {
                    wire.writeBytes(RawClient.encode("GET", key));
                    expected.add(model.get(key));
                } else {
                    wire.writeBytes(RawClient.encode("DEL", key));
                    expected.add(model.remove(key) != null ? 1L : 0L);
                }
            }
            c.send(wire.toByteArray()); // one write: the server sees it as a few large reads
            for (int i = 0; i < expected.size(); i++) {
                Object reply = c.read();
                Object want = expected.get(i);
                if (reply instanceof byte[]) {
                    reply = text(reply);
                }
                assertThat(reply).as("reply %d", i).isEqualTo(want);
            }
        }
    }

    @Test
    void aClientThatNeverReadsHoldsABatchOfLargeRepliesNotEveryReplyItAskedFor() throws Exception {
        int valueBytes = 60 << 10;
        int gets = 2_000; // 120 MB of replies
        try (RespFixture f = new RespFixture(dir); RawClient c = f.client()) {
            byte[] value = new byte[valueBytes];
            new SplittableRandom(3).nextBytes(value);
            assertThat(c.call("SET", "large", value)).isEqualTo("OK");
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            for (int i = 0; i < gets; i++) {
                wire.writeBytes(RawClient.encode("GET", "large"));
            }
            long before = io.netty.buffer.PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();

            c.send(wire.toByteArray()); // 50 KB of requests, and not a byte read for a while
            Thread.sleep(2_000);
            long held = io.netty.buffer.PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - before;

            assertThat(held).as("direct memory the server holds for the client").isLessThan(32L << 20);
            for (int i = 0; i < gets; i++) {
                assertThat((byte[]) c.read()).as("reply %d", i).isEqualTo(value);
            }
        }
    }

    @Test
    void manyConnectionsPipeliningAtOnceEachGetTheirOwnOrder() throws Exception {
        try (RespFixture f = new RespFixture(dir)) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 8; t++) {
                int id = t;
                Thread thread = new Thread(() -> {
                    try (RawClient c = f.client()) {
                        ByteArrayOutputStream wire = new ByteArrayOutputStream();
                        for (int i = 0; i < 300; i++) {
                            wire.writeBytes(RawClient.encode("SET", "c" + id + ":" + i, "v" + i));
                            wire.writeBytes(RawClient.encode("GET", "c" + id + ":" + i));
                        }
                        c.send(wire.toByteArray());
                        for (int i = 0; i < 300; i++) {
                            assertThat(c.read()).isEqualTo("OK");
                            assertThat(text(c.read())).isEqualTo("v" + i);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failures).isEmpty();
        }
    }

    /**
     * Hits answered on the event loop, misses and SETs run by workers, interleaved on one pipelined
     * connection: every reply in request order. Cold values (70 KB) are larger than the memory tier
     * ever admits, so their GETs always miss; hot values (1 KB) stay in memory; absent keys miss.
     */
    @Test
    void memoryHitsMissesAndSetsInterleavedAnswerInOrder() throws Exception {
        RespLimits limits = RespLimits.defaults(128 * 1024);
        try (RespFixture f = new RespFixture(dir, limits, 512 << 10); RawClient c = f.client()) {
            Map<String, byte[]> model = new HashMap<>();
            for (int i = 0; i < 100; i++) {
                model.put("h:" + i, value("h" + i, 1024));
                f.store.put(("h:" + i).getBytes(), model.get("h:" + i));
            }
            for (int i = 0; i < 10; i++) {
                model.put("c:" + i, value("c" + i, 70 * 1024));
                f.store.put(("c:" + i).getBytes(), model.get("c:" + i));
            }
            SplittableRandom random = new SplittableRandom(11);
            List<Object> expected = new ArrayList<>();
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            for (int i = 0; i < 3000; i++) {
                int op = random.nextInt(20);
                String key = op < 14 ? "h:" + random.nextInt(100) : op < 16 ? "c:" + random.nextInt(10)
                        : op < 17 ? "absent:" + i : "h:" + random.nextInt(100);
                if (op >= 17) {
                    byte[] v = value("s" + i, 1024);
                    wire.writeBytes(RawClient.encode("SET", key, v));
                    model.put(key, v);
                    expected.add("OK");
                } else if (op == 16 && i % 2 == 0) {
                    wire.writeBytes(RawClient.encode("PING"));
                    expected.add("PONG");
                } else {
                    wire.writeBytes(RawClient.encode("GET", key));
                    expected.add(model.get(key));
                }
            }
            byte[] bytes = wire.toByteArray();
            Thread sender = new Thread(() -> {
                try {
                    for (int at = 0; at < bytes.length; at += 4093) { // odd pieces: commands split across reads
                        c.send(java.util.Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + 4093)));
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            sender.start();
            for (int i = 0; i < expected.size(); i++) {
                Object reply = c.read();
                assertThat(reply).as("reply %d", i).isEqualTo(expected.get(i));
            }
            sender.join();
            assertThat(f.store.stats().hits()).as("hits").isPositive();
            assertThat(f.store.stats().misses()).as("misses").isPositive();
        }
    }

    private static byte[] value(String seed, int length) {
        byte[] v = new byte[length];
        new SplittableRandom(seed.hashCode()).nextBytes(v);
        return v;
    }
}
