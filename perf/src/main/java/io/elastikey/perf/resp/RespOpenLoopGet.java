// RespOpenLoopGet -- GETs at a constant rate over RESP (any server: Redis, `store serve`), Zipf keys, per-second CSV.
package io.elastikey.perf.resp;

import io.elastikey.perf.load.ZipfKeys;
import io.elastikey.protocol.net.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The open-loop client of the past-RAM experiment (perf/bin/past-ram): GET requests due at {@code --rate} per second
 * whatever the server's pace, each key drawn from {@link ZipfKeys}, latency counted from the request's intended start
 * (coordinated omission corrected, as wrk2 does). Any RESP server will do, which is the point: the same client
 * measures Redis and {@code elastikey store serve}.
 *
 * <p>A connection carries one GET at a time (no pipelining: a key server asks for one key at a time). The client
 * runs on {@code --threads} event loops, each with its share of the connections and of the schedule ({@link Share}):
 * the loop's timer wakes it when its next request is due, it sends every due request on a free connection of its
 * own, and a due request that finds none waits in the loop's queue, its latency still running from its intended
 * start. There is no thread per connection and no hand-off between threads, so the client costs a few microseconds
 * of CPU per GET and leaves the cores to the server it shares the machine with (the thread-per-connection client
 * before it took 0.85 of a core at 20,000 GETs/s, measured with {@code /proc/PID/stat}).
 *
 * <p>A reply that is not a bulk string of {@code --value-size} bytes counts as an error (a missing key, an error
 * reply); a connection the server closed or reset (a killed server) counts its GET in flight as an error and takes
 * no more; requests never sent are reported as {@code not_sent}. Per second of the run the CSV has the completions,
 * errors, and the p50, p99 and max latency in milliseconds of the requests due in that second.
 */
@Command(name = "resp", mixinStandardHelpOptions = true, sortOptions = false,
        description = "GETs over RESP at a constant rate (open loop), Zipf-distributed keys; latency from the "
                + "intended start.")
public final class RespOpenLoopGet implements Callable<Integer> {
    static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(10);

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Server host (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", required = true, description = "Server port.")
    int port;

    @Option(names = "--keys", required = true, description = "Keys 0..N-1 exist on the server.")
    int keys;

    @Option(names = "--key-format", defaultValue = "key:%012d",
            description = "Key name of a number (default: ${DEFAULT-VALUE}, as `store load` writes them).")
    String keyFormat;

    @Option(names = "--value-size", defaultValue = "4096", description = "Expected value size (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(names = "--rate", defaultValue = "30000", description = "GETs per second (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--duration", defaultValue = "30", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--warmup", defaultValue = "5", description = "Seconds run first, not measured (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--connections", defaultValue = "32",
            description = "Connections, one GET in flight on each (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--threads", defaultValue = "1",
            description = "Event-loop threads sharing the connections and the schedule (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--zipf", defaultValue = "0.99", description = "Zipf exponent of the key choice (default: ${DEFAULT-VALUE}).")
    double zipf;

    @Option(names = "--slo-ms", defaultValue = "5", description = "Latency objective, counted (default: ${DEFAULT-VALUE}).")
    long sloMillis;

    @Option(names = "--csv", description = "Per-second CSV: second, gets/s, errors, p50, p99, max (ms).")
    Path csv;

    private final PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RespOpenLoopGet()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rate < 1 || durationSeconds < 1 || warmupSeconds < 0 || connections < 1 || keys < 1 || threads < 1) {
            System.err.println("need --rate, --duration, --connections, --threads, --keys >= 1 and --warmup >= 0");
            return 2;
        }
        int seconds = warmupSeconds + durationSeconds;
        long scheduled = (long) rate * seconds;
        EventLoopGroup group = Transports.newGroup(Math.min(threads, connections), true, "resp-open-loop");
        try {
            List<Share> shares = connect(group, seconds, scheduled);
            out.printf("%,d GETs/s for %d s (after %d s not measured) over %,d keys (zipf %.2f), %d connections on "
                            + "%d threads to %s:%d%n", rate, durationSeconds, warmupSeconds, keys, zipf, connections,
                    shares.size(), host, port);
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            CountDownLatch done = new CountDownLatch(shares.size());
            for (Share share : shares) {
                share.loop.execute(() -> share.begin(start, done));
            }
            long drainNanos = TimeUnit.SECONDS.toNanos(seconds + 60L);
            if (!done.await(drainNanos, TimeUnit.NANOSECONDS)) {
                out.println("not every reply came within 60 s of the schedule's end: the rest count as not sent");
            }
            CountDownLatch stopped = new CountDownLatch(shares.size());
            for (Share share : shares) {
                share.loop.execute(() -> {
                    share.stop();
                    stopped.countDown();
                });
            }
            stopped.await();
            report(shares, seconds, scheduled);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        return 0;
    }

    /** Opens every connection and hands each loop's connections to that loop's share of the schedule. */
    private List<Share> connect(EventLoopGroup group, int seconds, long scheduled) throws InterruptedException {
        Bootstrap bootstrap = new Bootstrap().group(group).channel(Transports.socketChannelFor(group))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // its Connection is added once the channel's loop, hence its share, is known
                    }
                });
        Map<EventLoop, List<Channel>> byLoop = new IdentityHashMap<>();
        for (int i = 0; i < connections; i++) {
            Channel ch = bootstrap.connect(host, port).sync().channel();
            byLoop.computeIfAbsent(ch.eventLoop(), l -> new ArrayList<>()).add(ch);
        }
        List<Share> shares = new ArrayList<>();
        ZipfKeys zipfKeys = new ZipfKeys(keys, zipf);
        for (Map.Entry<EventLoop, List<Channel>> e : byLoop.entrySet()) {
            shares.add(new Share(e.getKey(), shares.size(), byLoop.size(), seconds, scheduled, zipfKeys));
        }
        int k = 0;
        for (List<Channel> channels : byLoop.values()) {
            Share share = shares.get(k++);
            for (Channel ch : channels) {
                Connection c = new Connection(ch, share);
                ch.pipeline().addLast("resp-reply", c);
                share.free.add(c);
            }
        }
        return shares;
    }

    private void report(List<Share> shares, int seconds, long scheduled) throws IOException {
        Histogram total = new Histogram(HIGHEST_NANOS, 3);
        long errors = 0;
        long done = 0;
        StringBuilder rows = new StringBuilder("second,gets_per_s,errors_per_s,p50_ms,p99_ms,max_ms\n");
        for (int s = 0; s < seconds; s++) {
            Histogram h = new Histogram(HIGHEST_NANOS, 3);
            long e = 0;
            for (Share share : shares) {
                h.add(share.perSecond[s]);
                e += share.errorsPerSecond[s];
            }
            rows.append(String.format(Locale.ROOT, "%d,%d,%d,%s,%s,%s%n", s - warmupSeconds, h.getTotalCount(), e,
                    ms(h, 50), ms(h, 99), h.getTotalCount() == 0 ? "" : String.format(Locale.ROOT, "%.3f",
                            h.getMaxValue() / 1e6)));
            if (s >= warmupSeconds) {
                total.add(h);
                errors += e;
            }
        }
        for (Share share : shares) {
            done += share.completed;
        }
        long lost = scheduled - done;
        long measured = total.getTotalCount();
        long overSlo = measured - total.getCountBetweenValues(0, TimeUnit.MILLISECONDS.toNanos(sloMillis));
        if (csv != null) {
            Files.writeString(csv, rows);
        }
        out.printf(Locale.ROOT, "result gets=%d gets_per_s=%.0f errors=%d not_sent=%d p50_ms=%.3f p99_ms=%.3f "
                        + "p999_ms=%.3f max_ms=%.3f over_slo=%d%n", measured, measured / (double) durationSeconds,
                errors, lost, total.getValueAtPercentile(50) / 1e6, total.getValueAtPercentile(99) / 1e6,
                total.getValueAtPercentile(99.9) / 1e6, total.getMaxValue() / 1e6, overSlo);
    }

    private static String ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? ""
                : String.format(Locale.ROOT, "%.3f", h.getValueAtPercentile(percentile) / 1e6);
    }

    /**
     * One event loop's part of the run: requests {@code index}, {@code index + shares}, ... of the schedule, the
     * connections of that loop, and the latencies they measured. Touched only on its loop (the report reads it
     * after the loop has stopped it).
     */
    private final class Share implements Runnable {
        final EventLoop loop;
        private final int shares;
        private final long scheduled;
        private final ZipfKeys zipfKeys;
        private final SplittableRandom random;
        final ArrayDeque<Connection> free = new ArrayDeque<>();
        /** Intended starts of due requests that found no free connection, oldest first. */
        private final ArrayDeque<Long> waiting = new ArrayDeque<>();
        final Histogram[] perSecond;
        final long[] errorsPerSecond;
        long completed;
        private long next;
        private long start;
        private int open;
        private CountDownLatch done;
        private boolean finished;

        Share(EventLoop loop, int index, int shares, int seconds, long scheduled, ZipfKeys zipfKeys) {
            this.loop = loop;
            this.shares = shares;
            this.scheduled = scheduled;
            this.zipfKeys = zipfKeys;
            this.random = new SplittableRandom(0x5eed + index);
            this.next = index;
            this.perSecond = new Histogram[seconds];
            for (int s = 0; s < seconds; s++) {
                perSecond[s] = new Histogram(HIGHEST_NANOS, 3);
            }
            this.errorsPerSecond = new long[seconds];
        }

        void begin(long startNanos, CountDownLatch allDone) {
            start = startNanos;
            done = allDone;
            open = free.size();
            run();
        }

        private long intended(long request) {
            return start + request * 1_000_000_000L / rate;
        }

        /** The timer's wake-up: every request now due joins the queue, the queue goes out, the timer is set again. */
        @Override
        public void run() {
            long now = System.nanoTime();
            while (next < scheduled && intended(next) - now <= 0) {
                waiting.add(intended(next));
                next += shares;
            }
            dispatch();
            if (next < scheduled) {
                loop.schedule(this, intended(next) - now, TimeUnit.NANOSECONDS);
            }
        }

        /** Sends waiting requests while a connection is free. */
        void dispatch() {
            while (!waiting.isEmpty() && !free.isEmpty()) {
                long key = zipfKeys.next(random);
                free.poll().send(String.format(keyFormat, key).getBytes(StandardCharsets.US_ASCII), waiting.poll());
            }
            finishIfDone();
        }

        void answered(Connection c, long intended, boolean ok) {
            long end = System.nanoTime();
            int second = (int) Math.min(perSecond.length - 1, Math.max(0, (intended - start) / 1_000_000_000L));
            perSecond[second].recordValue(Math.min(HIGHEST_NANOS, Math.max(0, end - intended)));
            completed++;
            if (!ok) {
                errorsPerSecond[second]++;
            }
            free.add(c);
            dispatch();
        }

        /** A connection is gone: its GET in flight, if any, is an error; it takes no more. */
        void lost(Connection c, long intended) {
            if (intended != Long.MIN_VALUE) {
                int second = (int) Math.min(perSecond.length - 1, Math.max(0, (intended - start) / 1_000_000_000L));
                errorsPerSecond[second]++;
                completed++;
            }
            free.remove(c);
            open--;
            finishIfDone();
        }

        /** Done when the schedule is through and nothing waits or is in flight, or no connection is left. */
        private void finishIfDone() {
            boolean through = next >= scheduled && waiting.isEmpty() && free.size() == open;
            if (!finished && done != null && (through || open == 0)) {
                finished = true;
                done.countDown();
            }
        }

        void stop() {
            finished = true;
            next = scheduled;
            waiting.clear();
            for (Connection c : free) {
                c.channel.close();
            }
        }
    }

    /** One connection: sends a GET, parses its one reply (a type line, then a bulk body), reports to its share. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        final Channel channel;
        private final Share share;
        /** The intended start of the GET in flight, {@link Long#MIN_VALUE} when none is. */
        private long inFlight = Long.MIN_VALUE;
        private boolean inBody;
        private int type;
        private long number;
        private boolean negative;
        private long bodyLeft;

        Connection(Channel channel, Share share) {
            this.channel = channel;
            this.share = share;
        }

        void send(byte[] key, long intended) {
            inFlight = intended;
            ByteBuf b = channel.alloc().buffer(32 + key.length);
            b.writeBytes(("*2\r\n$3\r\nGET\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(key).writeByte('\r').writeByte('\n');
            channel.writeAndFlush(b, channel.voidPromise());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                while (in.isReadable()) {
                    if (inBody) {
                        int skip = (int) Math.min(in.readableBytes(), bodyLeft);
                        in.skipBytes(skip);
                        bodyLeft -= skip;
                        if (bodyLeft == 0) {
                            reply(type == '$' && number == valueSize);
                        }
                    } else {
                        line(in.readByte());
                    }
                }
            } finally {
                in.release();
            }
        }

        /** One byte of the reply's first line: its type, then its number (for {@code $}: the body's length). */
        private void line(byte c) {
            if (type == 0) {
                type = c;
            } else if (c == '\n') {
                long n = negative ? -number : number;
                if (type == '$' && n >= 0) {
                    number = n;
                    bodyLeft = n + 2;
                    inBody = true;
                } else {
                    reply(false); // a null bulk, an error or any other reply: not the value asked for
                }
            } else if (c == '-') {
                negative = true;
            } else if (c >= '0' && c <= '9') {
                number = number * 10 + (c - '0');
            }
        }

        private void reply(boolean ok) {
            long intended = inFlight;
            inFlight = Long.MIN_VALUE;
            inBody = false;
            type = 0;
            number = 0;
            negative = false;
            if (intended != Long.MIN_VALUE) {
                share.answered(this, intended, ok);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            long intended = inFlight;
            inFlight = Long.MIN_VALUE;
            share.lost(this, intended);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            out.printf("connection %s: %s%n", ctx.channel().remoteAddress(), cause.getMessage());
            ctx.close();
        }
    }
}
