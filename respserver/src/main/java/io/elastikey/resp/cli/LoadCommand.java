// LoadCommand -- `elastikey store load`: exactly N keys of S bytes, into a store directory or a RESP server.
package io.elastikey.resp.cli;

import io.elastikey.resp.RespClientWire;
import io.elastikey.store.elastic.ElasticStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Writes keys {@code 0 .. count-1} named by {@code --key-format} (default: redis-benchmark's
 * {@code key:__rand_int__} with {@code -r}, i.e. {@code key:} and 12 zero-padded digits), each
 * with {@code --value-size} bytes of {@code x} (what redis-benchmark's SET writes). Into a store
 * directory directly ({@code --data}, putAll batches: the server must not be running), or over
 * RESP to any server ({@code --to}, pipelined SETs, every reply checked) such as Redis itself.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Load exactly COUNT keys of VALUE-SIZE bytes into a store directory or a RESP server.")
public final class LoadCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    StoreOptions store;

    @Option(names = "--to", description = "HOST:PORT of a RESP server (e.g. redis-server) to SET the keys on, "
            + "instead of --data.")
    String to;

    @Option(names = "--count", required = true, description = "Keys to write.")
    long count;

    @Option(names = "--value-size", defaultValue = "4096", description = "Bytes per value (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(names = "--key-format", defaultValue = "key:%012d", description = "Key format of the index (default: ${DEFAULT-VALUE}).")
    String keyFormat;

    @Option(names = "--batch", defaultValue = "1000", description = "Keys per putAll or pipelined burst (default: ${DEFAULT-VALUE}).")
    int batch;

    @Override
    public Integer call() throws Exception {
        byte[] value = new byte[valueSize];
        Arrays.fill(value, (byte) 'x');
        Progress progress = new Progress(count);
        if ((to == null) == (store.data == null)) {
            throw new IllegalArgumentException("give exactly one of --data DIR and --to HOST:PORT");
        }
        if (to != null) {
            loadOverResp(ServeCommand.hostPort(to).getHostString(), ServeCommand.hostPort(to).getPort(), value, progress);
        } else {
            loadDirect(value, progress);
        }
        progress.done();
        return 0;
    }

    private void loadDirect(byte[] value, Progress progress) {
        try (ElasticStore elastic = ElasticStore.open(store.config().mutate().memoryBudgetBytes(0).build())) {
            List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>(batch);
            for (long i = 0; i < count; i++) {
                entries.add(new AbstractMap.SimpleImmutableEntry<>(key(i), value));
                if (entries.size() == batch || i == count - 1) {
                    elastic.putAll(entries);
                    entries.clear();
                    progress.at(i + 1);
                }
            }
            System.out.printf("store holds %,d keys%n", elastic.size());
        }
    }

    private void loadOverResp(String host, int port, byte[] value, Progress progress) throws IOException {
        try (Socket socket = new Socket(host, port)) {
            socket.setTcpNoDelay(true);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 1 << 20);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            byte[] set = "SET".getBytes(StandardCharsets.US_ASCII);
            for (long i = 0; i < count; ) {
                long end = Math.min(count, i + batch);
                for (long k = i; k < end; k++) {
                    RespClientWire.command(out, set, key(k), value);
                }
                out.flush();
                for (long k = i; k < end; k++) {
                    String reply;
                    try {
                        reply = RespClientWire.reply(in);
                    } catch (EOFException e) {
                        throw new IOException("server closed the connection at key " + k, e);
                    }
                    if (!reply.equals("+OK")) {
                        throw new IOException("SET of key " + k + " answered " + reply);
                    }
                }
                i = end;
                progress.at(i);
            }
        }
    }

    private byte[] key(long i) {
        return String.format(keyFormat, i).getBytes(StandardCharsets.UTF_8);
    }

    /** One line per 10% and a last line with the rate. */
    private static final class Progress {
        private final long total;
        private final long start = System.nanoTime();
        private long nextReport;

        Progress(long total) {
            this.total = total;
            this.nextReport = Math.max(1, total / 10);
        }

        void at(long n) {
            if (n >= nextReport && n < total) {
                System.out.printf("  %,d / %,d keys (%d%%)%n", n, total, n * 100 / total);
                nextReport += Math.max(1, total / 10);
            }
        }

        void done() {
            double s = (System.nanoTime() - start) / 1e9;
            System.out.printf("loaded %,d keys in %.1f s (%,.0f keys/s)%n", total, s, total / s);
        }
    }
}
