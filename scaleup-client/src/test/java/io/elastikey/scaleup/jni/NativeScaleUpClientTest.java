// NativeScaleUpClientTest -- the JNI client against a scripted agent: answers and failures mapped, threads.
package io.elastikey.scaleup.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpException.Reason;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class NativeScaleUpClientTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static NativeScaleUpClient client(FakeAgent agent) {
        return new NativeScaleUpClient(agent.path(), "store-1", TIMEOUT);
    }

    private static Reason failureOf(FakeAgent agent, Duration timeout) {
        try (NativeScaleUpClient c = new NativeScaleUpClient(agent.path(), "store-1", timeout)) {
            c.status();
            throw new AssertionError("no exception");
        } catch (ScaleUpException e) {
            assertThat(e.getMessage()).contains("store-1").contains(agent.path().toString());
            return e.reason();
        }
    }

    @ParameterizedTest
    @EnumSource(Status.class)
    void everyStatusMapsToItsEnum(Status status) throws Exception {
        try (FakeAgent agent = FakeAgent.answering(FakeAgent.answer(status.wireName(), "store-1", 1, 2, 3, "\"m\""));
             NativeScaleUpClient c = client(agent)) {
            assertThat(c.rescale(10, "r").status()).isEqualTo(status);
        }
    }

    @Test
    void everyFieldIsMappedAndTheMessageDecodedAsUtf8() throws Exception {
        String message = "\"caf\u00e9 \\u00e9 \ud83d\ude00 \\ud83d\\ude00 \\\"q\\\" \\\\ \\n\"";
        try (FakeAgent agent = FakeAgent.answering(FakeAgent.answer("partial", "other.name", 384, 1L << 40,
                Long.MAX_VALUE, message)); NativeScaleUpClient c = client(agent)) {
            assertThat(c.rescale(512, "grow")).isEqualTo(new ScaleUpResponse(Status.PARTIAL, "other.name", 384,
                    1L << 40, Long.MAX_VALUE, "caf\u00e9 \u00e9 \ud83d\ude00 \ud83d\ude00 \"q\" \\ \n"));
        }
    }

    @Test
    void anAbsentMessageIsEmpty() throws Exception {
        String line = "{\"status\":\"denied\",\"client\":\"store-1\",\"granted_mb\":0,\"pool_free_mb\":0,"
                + "\"elapsed_us\":5}\n";
        try (FakeAgent agent = FakeAgent.answering(line); NativeScaleUpClient c = client(agent)) {
            assertThat(c.release().message()).isEmpty();
        }
    }

    @Test
    void requestsCarryTheReasonAsUtf8Json() throws Exception {
        try (FakeAgent agent = FakeAgent.answering(FakeAgent.answer("granted", "store-1", 1, 2, 3, "\"\""));
             NativeScaleUpClient c = client(agent)) {
            c.rescale(512, "grow \"now\"\n\u00e9\ud83d\ude00");
            assertThat(agent.nextRequest()).isEqualTo("{\"op\":\"rescale\",\"client\":\"store-1\",\"memory_mb\":512,"
                    + "\"reason\":\"grow \\\"now\\\"\\n\u00e9\ud83d\ude00\"}\n");
            c.rescale(0, null);
            assertThat(agent.nextRequest()).contains("\"memory_mb\":0,\"reason\":\"\"}");
            c.status();
            assertThat(agent.nextRequest()).isEqualTo("{\"op\":\"status\",\"client\":\"store-1\"}\n");
            c.release();
            assertThat(agent.nextRequest()).isEqualTo("{\"op\":\"release\",\"client\":\"store-1\"}\n");
        }
    }

    @Test
    void noAgentIsNoAgent() throws Exception {
        FakeAgent gone = FakeAgent.silent();
        gone.close();
        assertThat(failureOf(gone, TIMEOUT)).isEqualTo(Reason.NO_AGENT);
    }

    @Test
    void aSilentAgentTimesOut() throws Exception {
        try (FakeAgent agent = FakeAgent.silent()) {
            assertThat(failureOf(agent, Duration.ofMillis(200))).isEqualTo(Reason.TIMEOUT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nonsense\n", "{\"status\":\"granted\"}\n", "{\"status\":\"granted\",\"client\":\"c\","
            + "\"granted_mb\":\"1\",\"pool_free_mb\":2,\"elapsed_us\":3}\n", "{\"status\":\"gra"})
    void aMalformedAnswerIsMalformed(String line) throws Exception {
        try (FakeAgent agent = FakeAgent.answering(line)) {
            assertThat(failureOf(agent, TIMEOUT)).isEqualTo(Reason.MALFORMED_ANSWER);
        }
    }

    @Test
    void anOversizedAnswerIsTooLarge() throws Exception {
        try (FakeAgent agent = FakeAgent.answering(FakeAgent.answer("granted", "c", 1, 2, 3,
                "\"" + "m".repeat(5000) + "\""))) {
            assertThat(failureOf(agent, TIMEOUT)).isEqualTo(Reason.ANSWER_TOO_LARGE);
        }
    }

    @Test
    void anAgentThatHangsUpIsAnIoOrMalformedFailure() throws Exception {
        try (FakeAgent agent = FakeAgent.hangingUp()) {
            assertThat(failureOf(agent, TIMEOUT)).isIn(Reason.IO, Reason.MALFORMED_ANSWER);
        }
    }

    @Test
    void invalidCallArgumentsAreRejectedBeforeAnyIo() throws Exception {
        try (FakeAgent agent = FakeAgent.echo(); NativeScaleUpClient c = client(agent)) {
            for (long mb : new long[] {-1, (1L << 40) + 1, Long.MIN_VALUE}) {
                assertThatThrownBy(() -> c.rescale(mb, "r")).isInstanceOf(ScaleUpException.class)
                        .extracting(e -> ((ScaleUpException) e).reason()).isEqualTo(Reason.INVALID_ARGUMENT);
            }
            for (String reason : new String[] {"r".repeat(257), "\u00e9".repeat(129), "nul\0inside"}) {
                assertThatThrownBy(() -> c.rescale(1, reason)).isInstanceOf(ScaleUpException.class)
                        .extracting(e -> ((ScaleUpException) e).reason()).isEqualTo(Reason.INVALID_ARGUMENT);
            }
            assertThat(c.rescale(1L << 40, "\u00e9".repeat(128)).grantedMb()).isEqualTo(1L << 40);
        }
    }

    @Test
    void invalidConstructionArgumentsAreIllegal() {
        Path p = Path.of("/tmp/x.sock");
        for (String name : new String[] {"", "a".repeat(65), "a b", "caf\u00e9", "a\"b"}) {
            assertThatThrownBy(() -> new NativeScaleUpClient(p, name, TIMEOUT))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        for (Duration d : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), Duration.ofDays(30)}) {
            assertThatThrownBy(() -> new NativeScaleUpClient(p, "c", d)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> new NativeScaleUpClient(Path.of("/" + "p".repeat(107)), "c", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new NativeScaleUpClient(null, "a".repeat(64), Duration.ofNanos(1)).clientName()).hasSize(64);
    }

    @Test
    void closeIsIdempotentAndLaterCallsFail() throws Exception {
        try (FakeAgent agent = FakeAgent.echo()) {
            NativeScaleUpClient c = client(agent);
            c.close();
            c.close();
            assertThatThrownBy(c::status).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void concurrentCallersEachGetTheirOwnAnswer() throws Exception {
        int threads = 8;
        int calls = 100;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (FakeAgent agent = FakeAgent.echo(); NativeScaleUpClient c = client(agent)) {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long base = t * 1_000_000L;
                results.add(pool.submit(() -> {
                    int correct = 0;
                    for (int i = 0; i < calls; i++) {
                        ScaleUpResponse r = c.rescale(base + i, "concurrent");
                        if (r.grantedMb() == base + i && r.client().equals("store-1")) {
                            correct++;
                        }
                    }
                    return correct;
                }));
            }
            for (Future<Integer> f : results) {
                assertThat(f.get()).isEqualTo(calls);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
