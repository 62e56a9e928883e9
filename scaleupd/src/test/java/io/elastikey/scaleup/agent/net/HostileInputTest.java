package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import io.elastikey.scaleup.protocol.ScaleUpJson;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Whatever a peer sends, the agent answers {@code error} with a specific message or closes, and keeps serving. */
class HostileInputTest {
    @TempDir
    Path dir;
    ScaleUpAgent agent;

    @BeforeEach
    void start() throws Exception {
        agent = ScaleUpAgent.start(AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(1000).maxConnections(64).maxInFlight(4)
                .idleTimeout(Duration.ofMillis(500)).build());
    }

    @AfterEach
    void stop() throws Exception {
        assertStillServing();
        agent.close();
    }

    private void assertStillServing() throws Exception {
        try (SocketScaleUpClient c = new SocketScaleUpClient(agent.socketPath(), "probe", Duration.ofSeconds(10))) {
            assertThat(c.rescale(1, "still there?").status()).isEqualTo(Status.GRANTED);
            assertThat(c.release().grantedMb()).isZero();
        }
        assertThat(agent.pool().committedMb()).isLessThanOrEqualTo(1000);
    }

    private static ScaleUpResponse parse(String line) throws Exception {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return ScaleUpJson.decodeAnswer(b, 0, b.length);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "garbage                                                              | invalid JSON",
            "[1,2]                                                                | not a JSON object",
            "`\"just a string\"`                                                  | not a JSON object",
            "{}                                                                   | missing field op",
            "`{\"op\":\"rescale\"}`                                               | missing field client",
            "`{\"op\":\"rescale\",\"client\":\"a\"}`                              | missing field memory_mb",
            "`{\"op\":\"explode\",\"client\":\"a\"}`                              | unknown op",
            "`{\"op\":7,\"client\":\"a\"}`                                        | op must be a string",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":\"5\"}`          | memory_mb must be an integer",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":5.0}`            | memory_mb must be an integer",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":1e3}`            | memory_mb must be an integer",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":null}`           | memory_mb must be an integer",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":-5}`             | memory_mb must be 0..1099511627776",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":1099511627777}`  | memory_mb must be 0..1099511627776",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":99999999999999999999999999}` | memory_mb is out of range",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":9223372036854775807}` | memory_mb must be 0..",
            "`{\"op\":\"status\",\"client\":\"bad name\"}`                        | client name may hold only",
            "`{\"op\":\"status\",\"client\":\"\"}`                                | client name is empty",
            "`{\"op\":\"status\",\"client\":\"a\\u0000b\"}`                       | client name may hold only",
            "`{\"op\":\"status\",\"client\":[\"a\"]}`                             | client must be a string",
            "`{\"op\":\"status\",\"client\":\"a\",\"client\":\"b\"}`              | a field appears twice",
            "`{\"op\":\"status\",\"client\":\"a\"} {}`                            | content after the JSON object",
            "`{\"op\":\"status\",\"client\":\"a\"`                                | invalid JSON",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":1,\"reason\":\"x\\u0000y\"}` | reason contains a NUL",
            "`{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":1,\"reason\":5}` | reason must be a string",
    })
    void aMalformedLineGetsASpecificErrorAndTheConnectionStays(String line, String problem) throws Exception {
        try (RawConnection c = new RawConnection(agent.socketPath())) {
            ScaleUpResponse answer = parse(c.send(line + "\n").next());
            assertThat(answer.status()).isEqualTo(Status.ERROR);
            assertThat(answer.message()).startsWith("bad request: ").contains(problem);
            ScaleUpResponse ok = parse(c.send("{\"op\":\"status\",\"client\":\"a\"}\n").next());
            assertThat(ok.status()).isEqualTo(Status.GRANTED);
        }
    }

    @Test
    void rawNulsBadUtf8AndDeepNestingAreErrors() throws Exception {
        try (RawConnection c = new RawConnection(agent.socketPath())) {
            c.send(new byte[] {'{', '"', 'o', 'p', '"', 0, ':', '1', '}', '\n'});
            assertThat(parse(c.next()).message()).contains("invalid JSON");
            c.send(new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}', '\n'});
            assertThat(parse(c.next()).message()).contains("invalid JSON");
            c.send("{\"op\":\"status\",\"client\":\"a\",\"x\":" + "[".repeat(1500) + "]".repeat(1500) + "}\n");
            assertThat(parse(c.next()).message()).contains("exceeds the parser's limits");
            c.send("\n");
            assertThat(parse(c.next()).message()).contains("not a JSON object");
        }
    }

    @Test
    void aReasonOver256BytesIsAnError() throws Exception {
        try (RawConnection c = new RawConnection(agent.socketPath())) {
            c.send("{\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":1,\"reason\":\"" + "r".repeat(257) + "\"}\n");
            assertThat(parse(c.next()).message()).contains("reason is longer than 256 bytes");
        }
    }

    @Test
    void unknownFieldsAreIgnoredAndCrLfIsAccepted() throws Exception {
        try (RawConnection c = new RawConnection(agent.socketPath())) {
            c.send("{\"zzz\":{\"a\":[1,{}]},\"op\":\"rescale\",\"client\":\"a\",\"memory_mb\":3,\"reason\":\"r\"}\r\n");
            ScaleUpResponse r = parse(c.next());
            assertThat(r.status()).isEqualTo(Status.GRANTED);
            assertThat(r.grantedMb()).isEqualTo(3);
        }
    }

    @Test
    void aLineOver4096BytesGetsAnErrorThenTheConnectionCloses() throws Exception {
        try (RawConnection c = new RawConnection(agent.socketPath())) {
            c.send("{\"op\":\"status\",\"client\":\"a\",\"pad\":\"" + "p".repeat(5000) + "\"}\n");
            ScaleUpResponse answer = parse(c.next());
            assertThat(answer.status()).isEqualTo(Status.ERROR);
            assertThat(answer.message()).contains("longer than 4096 bytes");
            assertThat(c.next()).isEqualTo(RawConnection.EOF);
        }
    }

    @Test
    void anEndlessLineWithoutNewlineIsCutOff() throws Exception {
        try (RawConnection c = new RawConnection(agent.socketPath())) {
            byte[] chunk = "x".repeat(1000).getBytes(StandardCharsets.UTF_8);
            try {
                for (int i = 0; i < 100; i++) {
                    c.send(chunk);
                }
            } catch (java.io.IOException closedByAgent) {
                // the agent closed while we were still sending: what we wanted
            }
            assertThat(parse(c.next()).message()).contains("longer than 4096 bytes");
            assertThat(c.next()).isEqualTo(RawConnection.EOF);
        }
    }

    @Test
    void partialLinesThenCloseLeaveNothingBehind() throws Exception {
        for (int i = 0; i < 50; i++) {
            try (RawConnection c = new RawConnection(agent.socketPath())) {
                c.send("{\"op\":\"rescale\",\"client\":\"half\",\"memory_mb\":");
                c.shutdownOutput();
                assertThat(c.next()).isEqualTo(RawConnection.EOF);
            }
        }
        assertThat(agent.pool().grants()).doesNotContainKey("half");
    }

    @Test
    void anIdleConnectionIsClosed() throws Exception {
        try (RawConnection c = new RawConnection(agent.socketPath())) {
            c.send("{\"op\":\"sta");
            assertThat(c.next()).isEqualTo(RawConnection.EOF);
        }
    }

    @Test
    void pipelinedRequestsBeyondTheInFlightLimitGetErrorsButEveryLineIsAnswered() throws Exception {
        int n = 300;
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < n; i++) {
            batch.append("{\"op\":\"rescale\",\"client\":\"pipe\",\"memory_mb\":").append(i % 7).append("}\n");
        }
        try (RawConnection c = new RawConnection(agent.socketPath())) {
            c.send(batch.toString());
            int answered = 0;
            int refused = 0;
            for (int i = 0; i < n; i++) {
                ScaleUpResponse r = parse(c.next());
                answered++;
                if (r.status() == Status.ERROR) {
                    assertThat(r.message()).contains("too many requests in flight");
                    refused++;
                }
            }
            assertThat(answered).isEqualTo(n);
            assertThat(refused).isLessThan(n);
        }
    }

    @Test
    void thousandsOfConnectionsAreCappedAndTheAgentRecovers() throws Exception {
        List<RawConnection> open = new ArrayList<>();
        try {
            for (int i = 0; i < 1000; i++) {
                open.add(new RawConnection(agent.socketPath()));
            }
            int closedByAgent = 0;
            for (RawConnection c : open.subList(open.size() - 100, open.size())) {
                if (c.next().equals(RawConnection.EOF)) {
                    closedByAgent++;
                }
            }
            assertThat(closedByAgent).isEqualTo(100);
            assertThat(agent.openConnections()).isLessThanOrEqualTo(64);
        } finally {
            for (RawConnection c : open) {
                c.close();
            }
        }
    }
}
