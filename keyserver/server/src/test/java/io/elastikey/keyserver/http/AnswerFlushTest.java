// AnswerFlushTest -- HTTP/2 answers finished together leave the connection in one flush; none is left unflushed.
package io.elastikey.keyserver.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.ApplicationProtocolNames;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key server's HTTP/2 pipeline on an {@link EmbeddedChannel} (as the fuzz targets build it), with a service whose
 * answers the test finishes when it likes, as crypto workers do. The input is the fuzz seed {@code three-streams}:
 * the connection preface, SETTINGS and three requests, of which the service gets the well-formed ones.
 */
class AnswerFlushTest {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int FRAME_HEADER = 9;
    private static final int DATA = 0;
    private static final int END_STREAM = 1;

    private final List<CompletableFuture<byte[]>> pending = new ArrayList<>();
    private final EmbeddedChannel channel = SkiHttpFuzzing.channel(ApplicationProtocolNames.HTTP_2,
            (caller, request, deadline) -> {
                CompletableFuture<byte[]> answer = new CompletableFuture<>();
                pending.add(answer);
                return answer;
            });
    /** Flushes that sent something. */
    private int flushes;

    @Test
    void answersFinishedInOneTurnOfTheLoopLeaveInOneFlush() throws IOException {
        receiveThreeRequests();
        assertThat(pending).hasSizeGreaterThanOrEqualTo(2);

        flushes = 0;
        onTheLoop(() -> pending.forEach(answer -> answer.complete(new byte[] {1, 2, 3})));

        assertThat(finishedStreams()).isEqualTo(pending.size());
        assertThat(flushes).isEqualTo(1);
        channel.finishAndReleaseAll();
    }

    @Test
    void anAnswerAloneIsFlushedByTheLoopsNextTask() throws IOException {
        receiveThreeRequests();

        for (int i = 0; i < pending.size(); i++) {
            flushes = 0;
            CompletableFuture<byte[]> answer = pending.get(i);
            byte[] output = {(byte) i};
            onTheLoop(() -> answer.complete(output));
            assertThat(finishedStreams()).as("answer %d", i).isEqualTo(1);
            assertThat(flushes).isEqualTo(1);
        }
        channel.finishAndReleaseAll();
    }

    /**
     * Runs {@code task} as a worker's answer runs in the key server: as a task of the channel's loop, after which the
     * loop runs what the task queued. An {@link EmbeddedChannel} runs queued tasks in the middle of every write made
     * outside its own calls, which no real loop does, so the task goes in as an inbound message that
     * {@link TaskRunner} runs.
     */
    private void onTheLoop(Runnable task) {
        channel.writeInbound(task);
    }

    /** Runs the {@link Runnable}s written inbound; their read-complete goes no further, so it flushes nothing. */
    private static final class TaskRunner extends ChannelInboundHandlerAdapter {
        private boolean ranTask;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Runnable task) {
                ranTask = true;
                task.run();
            } else {
                ctx.fireChannelRead(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (ranTask) {
                ranTask = false;
            } else {
                ctx.fireChannelReadComplete();
            }
        }
    }

    private void receiveThreeRequests() throws IOException {
        channel.pipeline().addFirst(new TaskRunner());
        channel.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            private boolean written;

            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                written = true;
                ctx.write(msg, promise);
            }

            @Override
            public void flush(ChannelHandlerContext ctx) {
                if (written) {
                    flushes++; // a flush that sends something: one TLS record and one write on a real connection
                    written = false;
                }
                ctx.flush();
            }
        });
        ByteBuf input = Unpooled.buffer();
        input.writeBytes(PREFACE);
        byte[] seed = seed("three-streams");
        input.writeBytes(seed, 1, seed.length - 1); // the first byte is the fuzz target's control byte
        channel.writeInbound(input);
        channel.runPendingTasks();
        finishedStreams(); // SETTINGS and its acknowledgement
    }

    /** Reads what the server wrote and counts DATA frames that end their stream. */
    private int finishedStreams() {
        ByteBuf written = Unpooled.buffer();
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            ByteBuf buf = (ByteBuf) out;
            written.writeBytes(buf);
            buf.release();
        }
        int finished = 0;
        while (written.readableBytes() >= FRAME_HEADER) {
            int length = written.readUnsignedMedium();
            int type = written.readUnsignedByte();
            int flags = written.readUnsignedByte();
            written.skipBytes(4 + length);
            if (type == DATA && (flags & END_STREAM) != 0) {
                finished++;
            }
        }
        written.release();
        return finished;
    }

    private static byte[] seed(String name) throws IOException {
        try (InputStream in = AnswerFlushTest.class.getResourceAsStream("SkiHttp2FuzzTestInputs/serve/" + name)) {
            assertThat(in).as("seed %s", name).isNotNull();
            return in.readAllBytes();
        }
    }
}
