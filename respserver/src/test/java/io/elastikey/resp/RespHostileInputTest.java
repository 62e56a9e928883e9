package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed, oversized and hostile input gets an error reply and a closed connection, never a
 * crash: after each case a new connection is served as before.
 */
class RespHostileInputTest {
    @TempDir
    static Path dir;
    static RespFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new RespFixture(dir, RespLimits.defaults(64 * 1024).withMaxArrayLength(1024));
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @AfterEach
    void serverStillServes() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("PING")).isEqualTo("PONG");
        }
    }

    /** Sends {@code input}; expects an error reply starting with {@code ERR Protocol error}, then a close. */
    private static void expectProtocolErrorAndClose(String input) throws Exception {
        expectProtocolErrorAndClose(input.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static void expectProtocolErrorAndClose(byte[] input) throws Exception {
        try (RawClient c = fixture.client()) {
            c.send(input);
            Object reply = c.read();
            assertThat(reply).isInstanceOf(RawClient.Error.class);
            assertThat(((RawClient.Error) reply).text()).startsWith("ERR Protocol error");
            assertThat(c.closedByServerOnceDone()).isTrue();
        }
    }

    @Test
    void negativeArrayLengthBelowMinusOne() throws Exception {
        expectProtocolErrorAndClose("*-5\r\n");
    }

    @Test
    void negativeBulkLength() throws Exception {
        expectProtocolErrorAndClose("*2\r\n$3\r\nGET\r\n$-7\r\n");
    }

    @Test
    void nullBulkInsideCommand() throws Exception {
        expectProtocolErrorAndClose("*2\r\n$3\r\nGET\r\n$-1\r\n");
    }

    @Test
    void hugeBulkLengthIsRefusedBeforeAnyAllocation() throws Exception {
        expectProtocolErrorAndClose("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$999999999\r\nxx");
    }

    @Test
    void bulkJustOverTheValueLimit() throws Exception {
        expectProtocolErrorAndClose("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + (64 * 1024 + 1) + "\r\n");
    }

    @Test
    void millionElementArrayHeader() throws Exception {
        expectProtocolErrorAndClose("*1000000\r\n$3\r\nGET\r\n");
    }

    @Test
    void nestedArrays() throws Exception {
        expectProtocolErrorAndClose("*2\r\n*1\r\n$4\r\nPING\r\n$1\r\nx\r\n");
    }

    @Test
    void integerWhereABulkStringMustBe() throws Exception {
        expectProtocolErrorAndClose("*2\r\n$3\r\nGET\r\n:5\r\n");
    }

    @Test
    void topLevelBulkString() throws Exception {
        expectProtocolErrorAndClose("$4\r\nPING\r\n");
    }

    @Test
    void nonNumericLength() throws Exception {
        expectProtocolErrorAndClose("*x\r\n");
    }

    @Test
    void bulkWithoutItsCrlf() throws Exception {
        expectProtocolErrorAndClose("*1\r\n$4\r\nPINGXX*1\r\n$4\r\nPING\r\n");
    }

    @Test
    void lineLongerThanTheInlineLimit() throws Exception {
        expectProtocolErrorAndClose("A".repeat(70 * 1024));
    }

    @Test
    void anOversizedValueSentWholeGetsItsErrorNotAResetAndTheServerClosesOnItsOwnOnceTheClientIsQuiet()
            throws Exception {
        byte[] value = new byte[4 << 20]; // 64 times the limit, all of it sent before the reply is read
        java.util.Arrays.fill(value, (byte) 'x');
        try (RawClient c = fixture.client()) {
            c.send(RawClient.encode("SET", "big", value));
            Object reply = c.read();
            assertThat(reply).isInstanceOf(RawClient.Error.class);
            assertThat(((RawClient.Error) reply).text())
                    .isEqualTo("ERR Protocol error: invalid bulk length (4194304 bytes; at most 65536)");
            assertThat(c.closedByServer()).isTrue(); // without a shutdown: the lingering close ends it
        }
        try (RawClient c = fixture.client()) {
            assertThat(c.call("EXISTS", "big")).isEqualTo(0L);
        }
    }

    @Test
    void answersDueBeforeTheErrorAreStillSent() throws Exception {
        try (RawClient c = fixture.client()) {
            c.send(new String(RawClient.encode("PING"), StandardCharsets.ISO_8859_1) + "*-9\r\n");
            assertThat(c.read()).isEqualTo("PONG");
            assertThat(((RawClient.Error) c.read()).text()).startsWith("ERR Protocol error");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void truncatedFrameThenDisconnect() throws Exception {
        try (RawClient c = fixture.client()) {
            c.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nabc");
        } // the client goes away mid-value; the server releases what it held
    }

    @Test
    void emptyArraysAndBlankLinesAreIgnored() throws Exception {
        try (RawClient c = fixture.client()) {
            c.send("*0\r\n*-1\r\n\r\n");
            assertThat(c.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void randomGarbageNeverCrashesTheServer() throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        for (int round = 0; round < 50; round++) {
            byte[] garbage = new byte[1 + random.nextInt(4096)];
            for (int i = 0; i < garbage.length; i++) {
                garbage[i] = (byte) random.nextInt(256);
            }
            if (round % 2 == 0) {
                garbage[0] = (byte) "*$+-:".charAt(random.nextInt(5)); // start like a frame
            }
            try (RawClient c = fixture.client()) {
                c.send(garbage);
                c.send(RawClient.encode("PING"));
            } catch (java.net.SocketException e) {
                // the server may already have closed: fine
            }
        }
    }

    @Test
    void binaryCommandNameIsAnUnknownCommandNotACrash() throws Exception {
        try (RawClient c = fixture.client()) {
            Object reply = c.call(new byte[] {0, 1, 2, '\r', '\n', (byte) 0xff}, "arg");
            assertThat(((RawClient.Error) reply).text()).startsWith("ERR unknown command '");
            assertThat(c.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void idleConnectionIsClosed() throws Exception {
        try (RespFixture quick = new RespFixture(dir.resolve("idle"),
                RespLimits.defaults(1024).withIdleTimeout(java.time.Duration.ofMillis(200)));
             RawClient c = quick.client()) {
            assertThat(c.call("PING")).isEqualTo("PONG");
            assertThat(c.closedByServer()).isTrue(); // blocks until the server closes: no timing asserted
        }
    }

    @Test
    void connectionLimitRefusesTheExtraConnection() throws Exception {
        try (RespFixture small = new RespFixture(dir.resolve("limit"),
                RespLimits.defaults(1024).withMaxConnections(1));
             RawClient first = small.client()) {
            assertThat(first.call("PING")).isEqualTo("PONG");
            try (RawClient second = small.client()) {
                assertThat(second.closedByServer()).isTrue();
            }
            assertThat(first.call("PING")).isEqualTo("PONG");
        }
    }
}
