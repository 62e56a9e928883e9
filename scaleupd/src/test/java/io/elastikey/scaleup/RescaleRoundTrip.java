// RescaleRoundTrip -- measures SocketScaleUpClient round trips against an in-process scaleupd (a benchmark, not a test).
package io.elastikey.scaleup;

import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import io.elastikey.scaleup.socket.SocketScaleUpClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * {@code java -cp <test classpath> io.elastikey.scaleup.RescaleRoundTrip [ledger-dir] [calls]}: times {@code calls}
 * rescales that keep the grant (no ledger write), that change it (ledger write with fsync), and status calls, after a
 * warm-up, and prints p50/p99/p99.9/max in microseconds. The ledger directory decides what an fsync costs (tmpfs
 * under /tmp on many hosts, a disk elsewhere).
 */
public final class RescaleRoundTrip {

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("rescale-rt");
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        Path socket = Files.createTempDirectory("rescale-sock").resolve("a.sock");
        AgentConfig config = AgentConfig.builder().socketPath(socket).ledgerFile(dir.resolve("ledger.json"))
                .poolMb(4096).build();
        try (ScaleUpAgent agent = ScaleUpAgent.start(config);
             SocketScaleUpClient c = new SocketScaleUpClient(socket, "bench", Duration.ofSeconds(5))) {
            c.rescale(100, "warm-up");
            run("warm-up", calls, i -> c.rescale(100, ""));
            run("rescale, grant unchanged", calls, i -> c.rescale(100, ""));
            run("rescale, grant changed (ledger fsync)", Math.min(calls, 5_000), i -> c.rescale(100 + (i & 1), ""));
            run("status", calls, i -> c.status());
        }
    }

    private interface Call {
        void run(int i) throws Exception;
    }

    private static void run(String name, int calls, Call call) throws Exception {
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            call.run(i);
            nanos[i] = System.nanoTime() - t0;
        }
        Arrays.sort(nanos);
        System.out.printf("%-40s n=%6d p50=%6.1f us p99=%7.1f us p99.9=%7.1f us max=%8.1f us%n", name, calls,
                nanos[calls / 2] / 1e3, nanos[(int) (calls * 0.99)] / 1e3, nanos[(int) (calls * 0.999)] / 1e3,
                nanos[calls - 1] / 1e3);
    }
}
