package io.elastikey.edge.cli;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.protocol.config.Values;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code elastikey origin}: runs the sample origin, the content the demo and tests put behind the edge. */
@Command(name = "origin", mixinStandardHelpOptions = true,
        description = {"Run the sample origin: a small plain-HTTP server whose paths exercise the edge's cache "
                + "(/hello and / with max-age=60, /time with max-age=1, /nostore, /private, /bytes/N, /status/N, "
                + "/slow?ms=N, /echo)."})
public final class OriginCommand implements Callable<Integer> {
    @Option(names = "--listen", defaultValue = "127.0.0.1:8080", paramLabel = "HOST:PORT",
            description = "Where to listen (default: ${DEFAULT-VALUE}, the edge's default origin).")
    String listen;

    @Override
    public Integer call() throws Exception {
        SampleOrigin origin = SampleOrigin.start(Values.address("--listen", listen));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            origin.close();
            stopped.countDown();
        }, "origin-shutdown"));
        System.out.println("sample origin on http://" + origin.address().getHostString() + ":"
                + origin.address().getPort() + " (Ctrl-C stops)");
        stopped.await();
        return 0;
    }
}
