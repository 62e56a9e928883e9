// ScaleUpClientContract -- what every ScaleUpClient must do, run against a real scaleupd and a scripted fake.
package io.elastikey.scaleup;

import io.elastikey.scaleup.ScaleUpException.Reason;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ClientLimits;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The shared contract of {@link ScaleUpClient}: the pure-Java client and the JNI client extend this class with
 * their {@link #connect}, so both are held to the same answers and the same failure reasons.
 *
 * <p>The real agent runs in this JVM with a 1000 MiB pool, {@code keyserver} (min 100, max 600) and {@code edge}
 * (min 0, max 300) configured, unknown clients allowed. The scripted agent plays the failures.
 */
public abstract class ScaleUpClientContract {
    protected static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    protected Path dir;
    protected ScaleUpAgent agent;

    /** A client of the implementation under test for {@code client} at {@code socket}. */
    protected abstract ScaleUpClient connect(Path socket, String client, Duration timeout) throws ScaleUpException;

    protected AgentConfig agentConfig() {
        return AgentConfig.builder()
                .socketPath(dir.resolve("agent.sock"))
                .ledgerFile(dir.resolve("ledger.json"))
                .poolMb(1000)
                .client(new ClientLimits("keyserver", 100, 600))
                .client(new ClientLimits("edge", 0, 300))
                .build();
    }

    @BeforeEach
    void startAgent() throws Exception {
        agent = ScaleUpAgent.start(agentConfig());
    }

    @AfterEach
    void stopAgent() {
        if (agent != null) {
            agent.close();
        }
    }

    private ScaleUpClient client(String name) throws ScaleUpException {
        return connect(agent.socketPath(), name, TIMEOUT);
    }

    @Test
    void growWithinMaxAndPoolIsGranted() throws Exception {
        try (ScaleUpClient c = client("keyserver")) {
            assertThat(c.clientName()).isEqualTo("keyserver");
            ScaleUpResponse r = c.rescale(400, "hot set grew");
            assertThat(r.status()).isEqualTo(Status.GRANTED);
            assertThat(r.client()).isEqualTo("keyserver");
            assertThat(r.grantedMb()).isEqualTo(400);
            assertThat(r.poolFreeMb()).isEqualTo(600);
            assertThat(r.elapsedUs()).isNotNegative();
            assertThat(r.message()).isNotNull();
        }
    }

    @Test
    void growAboveMaxIsPartialUpToMax() throws Exception {
        try (ScaleUpClient c = client("keyserver")) {
            ScaleUpResponse r = c.rescale(800, "peak");
            assertThat(r.status()).isEqualTo(Status.PARTIAL);
            assertThat(r.grantedMb()).isEqualTo(600);
            assertThat(r.message()).contains("max");
        }
    }

    @Test
    void growBeyondTheFreePoolIsPartialThenDenied() throws Exception {
        try (ScaleUpClient big = client("batch-1"); ScaleUpClient other = client("batch-2")) {
            ScaleUpResponse r = big.rescale(950, "");
            assertThat(r.status()).isEqualTo(Status.PARTIAL);
            assertThat(r.grantedMb()).isEqualTo(900); // keyserver's minimum of 100 stays reserved
            assertThat(r.poolFreeMb()).isZero();
            ScaleUpResponse denied = other.rescale(10, "");
            assertThat(denied.status()).isEqualTo(Status.DENIED);
            assertThat(denied.grantedMb()).isZero();
            // the reservation still serves its owner
            try (ScaleUpClient ks = client("keyserver")) {
                assertThat(ks.rescale(100, "").status()).isEqualTo(Status.GRANTED);
            }
        }
    }

    @Test
    void growAtMaxIsDeniedAndShrinkIsGranted() throws Exception {
        try (ScaleUpClient c = client("edge")) {
            assertThat(c.rescale(300, "").status()).isEqualTo(Status.GRANTED);
            ScaleUpResponse denied = c.rescale(400, "");
            assertThat(denied.status()).isEqualTo(Status.DENIED);
            assertThat(denied.grantedMb()).isEqualTo(300);
            ScaleUpResponse shrunk = c.rescale(50, "load fell");
            assertThat(shrunk.status()).isEqualTo(Status.GRANTED);
            assertThat(shrunk.grantedMb()).isEqualTo(50);
        }
    }

    @Test
    void statusAndReleaseReportTheGrant() throws Exception {
        try (ScaleUpClient c = client("edge")) {
            assertThat(c.status().grantedMb()).isZero();
            c.rescale(120, "");
            ScaleUpResponse status = c.status();
            assertThat(status.status()).isEqualTo(Status.GRANTED);
            assertThat(status.grantedMb()).isEqualTo(120);
            assertThat(status.poolFreeMb()).isEqualTo(1000 - 100 - 120);
            ScaleUpResponse released = c.release();
            assertThat(released.grantedMb()).isZero();
            assertThat(released.poolFreeMb()).isEqualTo(900);
            assertThat(c.status().grantedMb()).isZero();
        }
    }

    @Test
    void grantsSurviveARestartOfTheAgent() throws Exception {
        try (ScaleUpClient c = client("keyserver")) {
            c.rescale(500, "");
        }
        agent.close();
        agent = ScaleUpAgent.start(agentConfig());
        try (ScaleUpClient c = client("keyserver")) {
            assertThat(c.status().grantedMb()).isEqualTo(500);
        }
    }

    @Test
    void noSocketFileIsNoAgent() throws Exception {
        try (ScaleUpClient c = connect(dir.resolve("nothing-here.sock"), "keyserver", TIMEOUT)) {
            assertReason(c::status, Reason.NO_AGENT);
        }
    }

    @Test
    void aSocketNobodyListensOnIsNoAgent() throws Exception {
        Path stale = dir.resolve("stale.sock");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(stale));
        }
        try (ScaleUpClient c = connect(stale, "keyserver", TIMEOUT)) {
            assertReason(() -> c.rescale(10, ""), Reason.NO_AGENT);
        }
    }

    @Test
    void anAgentThatNeverAnswersIsTimeout() throws Exception {
        try (ScriptedAgent silent = new ScriptedAgent(dir.resolve("silent.sock"), line -> null);
             ScaleUpClient c = connect(silent.path(), "keyserver", Duration.ofMillis(200))) {
            assertReason(() -> c.rescale(10, ""), Reason.TIMEOUT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "not json",
            "[]",
            "{}",
            "{\"status\":\"granted\"",
            "{\"status\":\"maybe\",\"client\":\"keyserver\",\"granted_mb\":1,\"pool_free_mb\":1,\"elapsed_us\":1,\"message\":\"\"}",
            "{\"status\":\"granted\",\"client\":\"keyserver\",\"granted_mb\":\"1\",\"pool_free_mb\":1,\"elapsed_us\":1,\"message\":\"\"}",
            "{\"status\":\"granted\",\"client\":\"keyserver\",\"granted_mb\":1.5,\"pool_free_mb\":1,\"elapsed_us\":1,\"message\":\"\"}",
            "{\"status\":\"granted\",\"client\":\"keyserver\",\"granted_mb\":-1,\"pool_free_mb\":1,\"elapsed_us\":1,\"message\":\"\"}",
            "{\"status\":\"granted\",\"client\":\"keyserver\",\"granted_mb\":1,\"pool_free_mb\":1,\"elapsed_us\":1}",
            "{\"status\":\"granted\",\"client\":\"keyserver\",\"granted_mb\":1,\"pool_free_mb\":1,\"elapsed_us\":1,\"message\":\"\"} trailing",
            "{\"status\":\"granted\",\"client\":\"keyserver\",\"granted_mb\":99999999999999999999999,\"pool_free_mb\":1,\"elapsed_us\":1,\"message\":\"\"}",
            "{\"status\":\"granted\",\"status\":\"denied\",\"client\":\"keyserver\",\"granted_mb\":1,\"pool_free_mb\":1,\"elapsed_us\":1,\"message\":\"\"}",
            "{\"status\":\"granted\",\"client\":\"someone-else\",\"granted_mb\":1,\"pool_free_mb\":1,\"elapsed_us\":1,\"message\":\"\"}",
    })
    void anAnswerOutsideTheProtocolIsMalformed(String answer) throws Exception {
        byte[] line = (answer + "\n").getBytes(StandardCharsets.UTF_8);
        try (ScriptedAgent fake = new ScriptedAgent(dir.resolve("fake.sock"), request -> line);
             ScaleUpClient c = connect(fake.path(), "keyserver", TIMEOUT)) {
            assertReason(() -> c.rescale(10, ""), Reason.MALFORMED_ANSWER);
        }
    }

    @Test
    void unknownFieldsInAnAnswerAreIgnored() throws Exception {
        byte[] line = ("{\"status\":\"partial\",\"extra\":{\"nested\":[1,2]},\"client\":\"keyserver\",\"granted_mb\":7,"
                + "\"pool_free_mb\":3,\"elapsed_us\":9,\"message\":\"m\"}\n").getBytes(StandardCharsets.UTF_8);
        try (ScriptedAgent fake = new ScriptedAgent(dir.resolve("fake.sock"), request -> line);
             ScaleUpClient c = connect(fake.path(), "keyserver", TIMEOUT)) {
            assertThat(c.rescale(10, "")).isEqualTo(new ScaleUpResponse(Status.PARTIAL, "keyserver", 7, 3, 9, "m"));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {4097, 5000, 70_000})
    void anAnswerLineOver4096BytesIsTooLarge(int size) throws Exception {
        byte[] huge = new byte[size + 1];
        java.util.Arrays.fill(huge, (byte) 'x');
        huge[size] = '\n';
        try (ScriptedAgent fake = new ScriptedAgent(dir.resolve("big.sock"), request -> huge);
             ScaleUpClient c = connect(fake.path(), "keyserver", TIMEOUT)) {
            assertReason(c::status, Reason.ANSWER_TOO_LARGE);
        }
    }

    @Test
    void anAnswerOfExactly4096BytesIsRead() throws Exception {
        String head = "{\"status\":\"granted\",\"client\":\"keyserver\",\"granted_mb\":1,\"pool_free_mb\":1,"
                + "\"elapsed_us\":1,\"message\":\"";
        String message = "y".repeat(4096 - head.length() - 2);
        byte[] line = (head + message + "\"}\n").getBytes(StandardCharsets.UTF_8);
        assertThat(line.length).isEqualTo(4097);
        try (ScriptedAgent fake = new ScriptedAgent(dir.resolve("edge.sock"), request -> line);
             ScaleUpClient c = connect(fake.path(), "keyserver", TIMEOUT)) {
            assertThat(c.status().message()).isEqualTo(message);
        }
    }

    @Test
    void anAgentClosingWithoutAnAnswerIsIo() throws Exception {
        try (ScriptedAgent fake = new ScriptedAgent(dir.resolve("rude.sock"), request -> new byte[0]);
             ScaleUpClient c = connect(fake.path(), "keyserver", TIMEOUT)) {
            assertReason(c::release, Reason.IO);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has space", "slash/name", "nul\0byte", "é", "x65"})
    void aBadClientNameIsAnInvalidArgument(String name) {
        String actual = name.equals("x65") ? "x".repeat(65) : name;
        assertReason(() -> {
            try (ScaleUpClient c = connect(agent.socketPath(), actual, TIMEOUT)) {
                c.status();
            }
        }, Reason.INVALID_ARGUMENT);
    }

    @Test
    void aNameOf64BytesIsFine() throws Exception {
        try (ScaleUpClient c = client("n".repeat(64))) {
            assertThat(c.rescale(1, "").grantedMb()).isEqualTo(1);
        }
    }

    @Test
    void badSizesAndReasonsAreInvalidArguments() throws Exception {
        try (ScaleUpClient c = client("keyserver")) {
            assertReason(() -> c.rescale(-1, ""), Reason.INVALID_ARGUMENT);
            assertReason(() -> c.rescale((1L << 40) + 1, ""), Reason.INVALID_ARGUMENT);
            assertReason(() -> c.rescale(1, "r".repeat(257)), Reason.INVALID_ARGUMENT);
            assertReason(() -> c.rescale(1, "é".repeat(129)), Reason.INVALID_ARGUMENT); // 258 bytes
            assertReason(() -> c.rescale(1, "a\0b"), Reason.INVALID_ARGUMENT);
            assertThat(c.rescale(1, "r".repeat(256)).status()).isEqualTo(Status.GRANTED);
            assertThat(c.rescale(1L << 40, "\"quoted\"\n\tand é").status()).isEqualTo(Status.PARTIAL);
        }
    }

    @Test
    void manyThreadsShareOneClientAndManyClients() throws Exception {
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (ScaleUpClient shared = client("edge")) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String name = "worker-" + t;
                done.add(pool.submit(() -> {
                    try (ScaleUpClient own = client(name)) {
                        for (int i = 0; i < 40; i++) {
                            long ask = ThreadLocalRandom.current().nextLong(0, 200);
                            ScaleUpResponse r = own.rescale(ask, "round " + i);
                            assertThat(r.client()).isEqualTo(name);
                            assertThat(r.grantedMb()).isLessThanOrEqualTo(ask);
                            assertThat(r.status()).isNotEqualTo(Status.ERROR);
                            assertThat(shared.status().client()).isEqualTo("edge");
                        }
                        own.release();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(agent.pool().grants()).isEmpty();
        assertThat(agent.pool().freeMb()).isEqualTo(900);
    }

    @Test
    void aClosedClientRefusesCalls() throws Exception {
        ScaleUpClient c = client("keyserver");
        c.close();
        c.close();
        assertThatThrownBy(c::status).isInstanceOf(ScaleUpException.class);
    }

    /** A call that must fail without an answer, for {@code reason}. */
    protected interface Call {
        void run() throws Exception;
    }

    protected static void assertReason(Call call, Reason reason) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(ScaleUpException.class,
                e -> assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason));
    }
}
