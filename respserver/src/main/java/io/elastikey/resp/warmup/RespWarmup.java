// RespWarmup -- before `store serve` says ready, SETs and GETs over loopback to a throwaway store, so the JIT has
// compiled the write and read paths before the first client's requests.
package io.elastikey.resp.warmup;

import io.elastikey.protocol.config.FileTrees;
import io.elastikey.protocol.warmup.CompilerActivity;
import io.elastikey.resp.RespClientWire;
import io.elastikey.resp.RespLimits;
import io.elastikey.resp.RespOptions;
import io.elastikey.resp.RespServer;
import io.elastikey.resp.RespUsers;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first SETs a just-started server answered paid for the compiling of their path: in the first {@code
 * redis-benchmark -t set -d 4096 -c 50} line after a start, the JIT compilers took 37% of the server's CPU and the line
 * ran at 37,182 SETs/s against 56,000-71,000 once warm (docs/benchmarks.md). Redis has nothing to compile, so a
 * comparison that starts with a fresh server measured our compiler. So before it says ready, {@code store serve} runs
 * a second RespServer on a loopback port, over a throwaway store in {@code DATA/.warmup} with the real store's fsync
 * policy and read path, and sends it pipelined and single SETs and GETs of 4 KB values (the report's size) over a few
 * connections, until the JIT has gone quiet ({@link CompilerActivity}) or the budget is spent. The compiled code is
 * the same classes' as the real server's. The throwaway store is closed and deleted after; one left by a killed start
 * is deleted by the next. The real store is never touched.
 */
public final class RespWarmup {
    private static final Logger log = LoggerFactory.getLogger(RespWarmup.class);
    /** Under the data directory: the same file system as the real log, and never in a tmpfs that counts as memory. */
    static final String DIRECTORY = ".warmup";
    private static final int CONNECTIONS = 4;
    private static final int KEYS = 4096;
    private static final int VALUE_BYTES = 4096;
    private static final int PIPELINE = 16;
    private static final byte[] SET = ascii("SET");
    private static final byte[] GET = ascii("GET");

    private RespWarmup() {
    }

    /**
     * Runs the warm-up for at most {@code budget} ({@code 0}: none) beside the store {@code real} describes, with
     * {@code eventLoops} as the real server will have, and returns how many requests were answered. Never throws: a
     * warm-up that cannot run costs only the warm-up.
     */
    public static long run(ElasticStoreConfig real, int eventLoops, Duration budget) {
        if (budget.isZero() || budget.isNegative()) {
            return 0;
        }
        Path dir = real.directory().resolve(DIRECTORY);
        long start = System.nanoTime();
        long compiling = CompilerActivity.millisSoFar();
        try {
            FileTrees.delete(dir);
            long answered;
            try (ElasticStore store = ElasticStore.open(throwaway(real, dir))) {
                // A password of its own: nobody else may write to it meanwhile, and it does not log the no-AUTH warning.
                String password = Long.toHexString(new java.security.SecureRandom().nextLong());
                RespServer server = RespServer.start(store, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                        RespLimits.defaults(store.maxValueSize()).withWorkerThreads(CONNECTIONS), eventLoops,
                        RespOptions.builder().users(RespUsers.builder().requirePass(password).build()).build());
                try {
                    answered = exercise(server.address(), password, start + budget.toNanos());
                } finally {
                    server.close();
                }
            }
            log.info("warm-up: {} SETs and GETs to a throwaway store in {} ms, the JIT compiling for {} ms of it",
                    answered, (System.nanoTime() - start) / 1_000_000, CompilerActivity.millisSoFar() - compiling);
            return answered;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("warm-up stopped, serving without it: {}", e.toString());
            return 0;
        } finally {
            try {
                FileTrees.delete(dir);
            } catch (IOException e) {
                log.warn("could not delete the warm-up's store {}: {}", dir, e.toString());
            }
        }
    }

    /** A small store with the real one's durability and read path, so the warm-up runs the code the real one will. */
    static ElasticStoreConfig throwaway(ElasticStoreConfig real, Path dir) {
        return ElasticStoreConfig.builder(dir).fsyncPolicy(real.fsyncPolicy()).directReads(real.directReads())
                .locationTable(real.locationTable()).residencyPolicy(real.residencyPolicy())
                .memoryBudgetBytes(KEYS / 2L * VALUE_BYTES).indexCapacity(4L * KEYS).segmentSizeBytes(4 << 20)
                .checkpointIntervalMillis(1000).build();
    }

    /**
     * Rounds over {@value #CONNECTIONS} connections until {@code deadline} or a quiet JIT: each round writes a batch
     * of {@value #PIPELINE} SETs and one of as many GETs on every connection, then one SET and one GET alone, and
     * reads every reply. Half the keys fit the memory tier, so GETs take both the memory path and the disk path.
     */
    private static long exercise(InetSocketAddress address, String password, long deadline) throws IOException {
        byte[] value = new byte[VALUE_BYTES];
        SplittableRandom random = new SplittableRandom(7);
        random.nextBytes(value);
        List<Connection> connections = new ArrayList<>();
        long answered = 0;
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                Connection c = new Connection(address);
                connections.add(c);
                RespClientWire.command(c.out, ascii("AUTH"), ascii(password));
                c.out.flush();
                c.readReplies(1);
            }
            CompilerActivity compiler = new CompilerActivity(System.nanoTime());
            ByteArrayOutputStream batch = new ByteArrayOutputStream(PIPELINE * (VALUE_BYTES + 64));
            while (System.nanoTime() - deadline < 0 && !compiler.quiet(System.nanoTime())) {
                for (boolean set : new boolean[] {true, false}) {
                    for (Connection c : connections) {
                        batch.reset();
                        for (int i = 0; i < PIPELINE; i++) {
                            request(batch, set, key(random), value);
                        }
                        batch.writeTo(c.out);
                        c.out.flush();
                    }
                    for (Connection c : connections) {
                        answered += c.readReplies(PIPELINE);
                    }
                }
                for (Connection c : connections) {
                    batch.reset();
                    request(batch, true, key(random), value);
                    request(batch, false, key(random), value);
                    batch.writeTo(c.out);
                    c.out.flush();
                    answered += c.readReplies(2);
                }
            }
        } finally {
            for (Connection c : connections) {
                c.socket.close();
            }
        }
        return answered;
    }

    private static byte[] key(SplittableRandom random) {
        return ascii(String.format("warmup:%06d", random.nextInt(KEYS)));
    }

    /** {@code SET key value}, or {@code GET key}. */
    private static void request(ByteArrayOutputStream out, boolean set, byte[] key, byte[] value) throws IOException {
        if (set) {
            RespClientWire.command(out, SET, key, value);
        } else {
            RespClientWire.command(out, GET, key);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** One blocking client connection that reads replies only as far as telling them apart. */
    private static final class Connection {
        final Socket socket;
        final OutputStream out;
        final InputStream in;

        Connection(InetSocketAddress address) throws IOException {
            socket = new Socket(address.getAddress(), address.getPort());
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
            out = new BufferedOutputStream(socket.getOutputStream(), 64 << 10);
            in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
        }

        /** Reads {@code n} replies; an error reply stops the warm-up, since its requests are always valid. */
        int readReplies(int n) throws IOException {
            for (int i = 0; i < n; i++) {
                String reply = RespClientWire.reply(in);
                if (reply.startsWith("-")) {
                    throw new IOException("the warm-up's server answered " + reply);
                }
            }
            return n;
        }
    }
}
