// NativeScaleUpClientTest -- what only the JNI client has: fields and UTF-8 crossing JNI both ways, its arguments.
package io.elastikey.scaleup.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpException.Reason;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.ScriptedAgent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The behaviour both clients share is in {@link NativeScaleUpClientContractTest}; this is the JNI layer's own. */
class NativeScaleUpClientTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    /** An agent answering every request with {@code answer}, keeping the requests it read. */
    private ScriptedAgent answering(String answer, BlockingQueue<String> requests) throws Exception {
        byte[] line = (answer + "\n").getBytes(StandardCharsets.UTF_8);
        return new ScriptedAgent(dir.resolve("agent.sock"), request -> {
            requests.add(request);
            return line;
        });
    }

    private static String answer(String status, String client, long granted, long free, long elapsed, String msg) {
        return "{\"status\":\"" + status + "\",\"client\":\"" + client + "\",\"granted_mb\":" + granted
                + ",\"pool_free_mb\":" + free + ",\"elapsed_us\":" + elapsed + ",\"message\":" + msg + "}";
    }

    @ParameterizedTest
    @EnumSource(Status.class)
    void everyStatusMapsToItsEnum(Status status) throws Exception {
        try (ScriptedAgent agent = answering(answer(status.wireName(), "store-1", 1, 2, 3, "\"m\""),
                new LinkedBlockingQueue<>());
             NativeScaleUpClient c = new NativeScaleUpClient(agent.path(), "store-1", TIMEOUT)) {
            assertThat(c.rescale(10, "r").status()).isEqualTo(status);
        }
    }

    @Test
    void everyFieldCrossesJniAndTheMessageIsDecodedAsUtf8() throws Exception {
        String message = "\"caf\u00e9 \\u00e9 \ud83d\ude00 \\ud83d\\ude00 \\\"q\\\" \\\\ \\n\"";
        try (ScriptedAgent agent = answering(answer("partial", "store-1", 384, 1L << 40, Long.MAX_VALUE, message),
                new LinkedBlockingQueue<>());
             NativeScaleUpClient c = new NativeScaleUpClient(agent.path(), "store-1", TIMEOUT)) {
            assertThat(c.rescale(512, "grow")).isEqualTo(new ScaleUpResponse(Status.PARTIAL, "store-1", 384,
                    1L << 40, Long.MAX_VALUE, "caf\u00e9 \u00e9 \ud83d\ude00 \ud83d\ude00 \"q\" \\ \n"));
        }
    }

    @Test
    void requestsCarryTheReasonAsUtf8Json() throws Exception {
        BlockingQueue<String> requests = new LinkedBlockingQueue<>();
        try (ScriptedAgent agent = answering(answer("granted", "store-1", 1, 2, 3, "\"\""), requests);
             NativeScaleUpClient c = new NativeScaleUpClient(agent.path(), "store-1", TIMEOUT)) {
            c.rescale(512, "grow \"now\"\n\u00e9\ud83d\ude00");
            assertThat(requests.poll(10, TimeUnit.SECONDS)).isEqualTo("{\"op\":\"rescale\",\"client\":\"store-1\","
                    + "\"memory_mb\":512,\"reason\":\"grow \\\"now\\\"\\n\u00e9\ud83d\ude00\"}");
            c.rescale(0, null);
            assertThat(requests.poll(10, TimeUnit.SECONDS)).contains("\"memory_mb\":0,\"reason\":\"\"}");
            c.status();
            assertThat(requests.poll(10, TimeUnit.SECONDS)).isEqualTo("{\"op\":\"status\",\"client\":\"store-1\"}");
            c.release();
            assertThat(requests.poll(10, TimeUnit.SECONDS)).isEqualTo("{\"op\":\"release\",\"client\":\"store-1\"}");
        }
    }

    @Test
    void aTimeoutTheCApiCannotExpressIsAnInvalidArgument() throws Exception {
        Path p = Path.of("/tmp/x.sock");
        assertThatThrownBy(() -> new NativeScaleUpClient(p, "c", Duration.ofDays(30)))
                .isInstanceOfSatisfying(ScaleUpException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_ARGUMENT));
        assertThat(new NativeScaleUpClient(null, "c", Duration.ofNanos(1)).clientName()).isEqualTo("c");
    }
}
