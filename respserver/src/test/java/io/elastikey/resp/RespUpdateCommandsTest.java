package io.elastikey.resp;

import static io.elastikey.resp.RawClient.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * INCR, DECR, INCRBY, DECRBY, APPEND, SETNX, GETSET, GETDEL, STRLEN and SET's NX, XX and GET over a real socket,
 * checked against Redis 7's replies; and that concurrent updates of one key from many connections lose none.
 */
class RespUpdateCommandsTest {
    private static final RawClient.Error NOT_AN_INTEGER = new RawClient.Error(
            "ERR value is not an integer or out of range");

    @TempDir
    static Path dir;
    static RespFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new RespFixture(dir);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void countersStartAtZeroAndMoveByTheirStep() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("INCR", "n:a")).isEqualTo(1L);
            assertThat(c.call("incr", "n:a")).isEqualTo(2L);
            assertThat(c.call("INCRBY", "n:a", "40")).isEqualTo(42L);
            assertThat(c.call("DECR", "n:a")).isEqualTo(41L);
            assertThat(c.call("DECRBY", "n:a", "50")).isEqualTo(-9L);
            assertThat(c.call("INCRBY", "n:a", "-1")).isEqualTo(-10L);
            assertThat(text(c.call("GET", "n:a"))).as("stored as its decimal text").isEqualTo("-10");
            assertThat(c.call("DECR", "n:fresh")).isEqualTo(-1L);
            c.call("SET", "n:set", "100");
            assertThat(c.call("INCR", "n:set")).isEqualTo(101L);
        }
    }

    @Test
    void aValueThatIsNotACanonicalIntegerIsRefusedAndLeftAlone() throws Exception {
        try (RawClient c = fixture.client()) {
            for (String v : List.of("abc", "", " 1", "1 ", "+1", "01", "-0", "1.5", "9223372036854775808",
                    "-9223372036854775809", "123456789012345678901")) {
                c.call("SET", "bad:v", v);
                assertThat(c.call("INCR", "bad:v")).as("INCR of '%s'", v).isEqualTo(NOT_AN_INTEGER);
                assertThat(text(c.call("GET", "bad:v"))).isEqualTo(v);
            }
            assertThat(c.call("INCRBY", "bad:arg", "ten")).isEqualTo(NOT_AN_INTEGER);
            assertThat(c.call("DECRBY", "bad:arg", "1e3")).isEqualTo(NOT_AN_INTEGER);
            assertThat(c.call("EXISTS", "bad:arg")).isEqualTo(0L);
        }
    }

    @Test
    void overflowIsAnErrorWithNothingWritten() throws Exception {
        try (RawClient c = fixture.client()) {
            c.call("SET", "o:max", "9223372036854775807");
            assertThat(c.call("INCR", "o:max")).isEqualTo(new RawClient.Error(
                    "ERR increment or decrement would overflow"));
            assertThat(text(c.call("GET", "o:max"))).isEqualTo("9223372036854775807");
            c.call("SET", "o:min", "-9223372036854775808");
            assertThat(c.call("DECR", "o:min")).isEqualTo(new RawClient.Error(
                    "ERR increment or decrement would overflow"));
            assertThat(c.call("DECRBY", "o:zero", "-9223372036854775808")).isEqualTo(new RawClient.Error(
                    "ERR decrement would overflow"));
            assertThat(c.call("INCRBY", "o:min", "9223372036854775807")).isEqualTo(-1L);
        }
    }

    @Test
    void appendAndStrlen() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("STRLEN", "s:a")).isEqualTo(0L);
            assertThat(c.call("APPEND", "s:a", "Hello")).isEqualTo(5L);
            assertThat(c.call("APPEND", "s:a", " World")).isEqualTo(11L);
            assertThat(text(c.call("GET", "s:a"))).isEqualTo("Hello World");
            assertThat(c.call("STRLEN", "s:a")).isEqualTo(11L);
            assertThat(c.call("APPEND", "s:empty", "")).as("creates an empty value, as Redis does").isEqualTo(0L);
            assertThat(c.call("EXISTS", "s:empty")).isEqualTo(1L);
        }
    }

    @Test
    void setnxGetsetGetdel() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("SETNX", "g:a", "1")).isEqualTo(1L);
            assertThat(c.call("SETNX", "g:a", "2")).isEqualTo(0L);
            assertThat(text(c.call("GETSET", "g:a", "3"))).isEqualTo("1");
            assertThat(c.call("GETSET", "g:none", "x")).isNull();
            assertThat(text(c.call("GET", "g:none"))).isEqualTo("x");
            assertThat(text(c.call("GETDEL", "g:a"))).isEqualTo("3");
            assertThat(c.call("GETDEL", "g:a")).isNull();
            assertThat(c.call("EXISTS", "g:a")).isEqualTo(0L);
        }
    }

    @Test
    void setNxXxAndGet() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("SET", "x:a", "1", "XX")).as("XX on an absent key").isNull();
            assertThat(c.call("EXISTS", "x:a")).isEqualTo(0L);
            assertThat(c.call("SET", "x:a", "1", "NX")).isEqualTo("OK");
            assertThat(c.call("SET", "x:a", "2", "nx")).isNull();
            assertThat(c.call("SET", "x:a", "3", "XX")).isEqualTo("OK");
            assertThat(text(c.call("SET", "x:a", "4", "GET"))).isEqualTo("3");
            assertThat(text(c.call("SET", "x:a", "5", "NX", "GET"))).as("NX GET on a present key: its value, no write")
                    .isEqualTo("4");
            assertThat(c.call("SET", "x:b", "6", "NX", "GET")).isNull();
            assertThat(text(c.call("GET", "x:b"))).isEqualTo("6");
            assertThat(text(c.call("SET", "x:a", "7", "XX", "GET"))).isEqualTo("4");
            assertThat(text(c.call("GET", "x:a"))).isEqualTo("7");
        }
    }

    @Test
    void wrongArityIsRedisText() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("INCR")).isEqualTo(new RawClient.Error(
                    "ERR wrong number of arguments for 'incr' command"));
            assertThat(c.call("INCRBY", "k")).isEqualTo(new RawClient.Error(
                    "ERR wrong number of arguments for 'incrby' command"));
            assertThat(c.call("GETDEL", "a", "b")).isEqualTo(new RawClient.Error(
                    "ERR wrong number of arguments for 'getdel' command"));
        }
    }

    @Test
    void incrementsFromManyConnectionsAtOnceAreEveryOneCounted() throws Exception {
        int connections = 8;
        int each = 250;
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < connections; t++) {
                done.add(pool.submit(() -> {
                    try (RawClient c = fixture.client()) {
                        StringBuilder burst = new StringBuilder(); // pipelined, so they overlap in the server
                        for (int i = 0; i < each; i++) {
                            burst.append("INCR race\r\nAPPEND race:log x\r\n");
                        }
                        c.send(burst.toString());
                        long last = 0;
                        for (int i = 0; i < 2 * each; i++) {
                            Object reply = c.read();
                            assertThat(reply).isInstanceOf(Long.class);
                            last = i % 2 == 0 ? (Long) reply : last;
                        }
                        return last;
                    }
                }));
            }
            for (Future<Long> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        try (RawClient c = fixture.client()) {
            assertThat(text(c.call("GET", "race"))).isEqualTo(String.valueOf(connections * each));
            assertThat(c.call("STRLEN", "race:log")).isEqualTo((long) connections * each);
        }
    }
}
