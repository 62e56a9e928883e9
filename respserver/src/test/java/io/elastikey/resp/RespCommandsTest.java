package io.elastikey.resp;

import static io.elastikey.resp.RawClient.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every command of docs/resp.md over a real socket, checked against Redis 7's replies. */
class RespCommandsTest {
    @TempDir
    static Path dir;
    static RespFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new RespFixture(dir, RespOptions.builder().resizeBounds(RespFixture.smallBounds()).build(),
                "127.0.0.1");
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void pingAndEcho() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("PING")).isEqualTo("PONG");
            assertThat(text(c.call("ping", "hello"))).isEqualTo("hello");
            assertThat(text(c.call("ECHO", "a b\r\nc"))).isEqualTo("a b\r\nc");
        }
    }

    @Test
    void setGetDelExistsMget() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("SET", "cmd:a", "1")).isEqualTo("OK");
            assertThat(c.call("set", "cmd:b", "")).isEqualTo("OK");
            assertThat(text(c.call("GET", "cmd:a"))).isEqualTo("1");
            assertThat(text(c.call("GET", "cmd:b"))).isEmpty();
            assertThat(c.call("GET", "cmd:none")).isNull();
            assertThat(c.call("EXISTS", "cmd:a", "cmd:a", "cmd:none")).isEqualTo(2L);
            List<?> values = (List<?>) c.call("MGET", "cmd:a", "cmd:none", "cmd:b");
            assertThat(values).hasSize(3);
            assertThat(text(values.get(0))).isEqualTo("1");
            assertThat(values.get(1)).isNull();
            assertThat(c.call("DEL", "cmd:a", "cmd:b", "cmd:none")).isEqualTo(2L);
            assertThat(c.call("GET", "cmd:a")).isNull();
        }
    }

    @Test
    void msetWritesEveryPairAndUnlinkDeletesAsDelDoes() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("MSET", "mset:a", "1", "mset:b", "2", "mset:a", "3")).isEqualTo("OK");
            List<?> values = (List<?>) c.call("MGET", "mset:a", "mset:b");
            assertThat(text(values.get(0))).as("the last pair for a key wins, as in Redis").isEqualTo("3");
            assertThat(text(values.get(1))).isEqualTo("2");
            assertThat(c.call("UNLINK", "mset:a", "mset:b", "mset:none")).isEqualTo(2L);
            assertThat(c.call("EXISTS", "mset:a", "mset:b")).isEqualTo(0L);
        }
    }

    @Test
    void anMsetWithAnOddArgumentOrAValueOverTheLimitWritesNothing() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("MSET", "odd:a", "1", "odd:b")).isEqualTo(new RawClient.Error(
                    "ERR wrong number of arguments for 'mset' command"));
            assertThat(c.call("MSET", "odd:a")).isEqualTo(new RawClient.Error(
                    "ERR wrong number of arguments for 'mset' command"));
            Object refused = c.call("MSET", "odd:a", "1", "k".repeat(2000), "2");
            assertThat(((RawClient.Error) refused).text()).startsWith("ERR ");
            assertThat(c.call("EXISTS", "odd:a", "odd:b")).as("all pairs or none").isEqualTo(0L);
        }
    }

    @Test
    void shutdownInAnEmbeddedServerIsRefusedAndItsOptionsCheckedAsRedisDoes() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(((RawClient.Error) c.call("SHUTDOWN")).text())
                    .isEqualTo("ERR SHUTDOWN is not available: this server runs inside another program, which "
                            + "decides when it stops");
            assertThat(((RawClient.Error) c.call("shutdown", "nosave", "now", "force")).text())
                    .startsWith("ERR SHUTDOWN is not available");
            assertThat(c.call("SHUTDOWN", "ABORT")).isEqualTo(new RawClient.Error("ERR No shutdown in progress."));
            assertThat(c.call("SHUTDOWN", "SAVE", "NOSAVE")).isEqualTo(new RawClient.Error("ERR syntax error"));
            assertThat(c.call("SHUTDOWN", "SAVE", "ABORT")).isEqualTo(new RawClient.Error("ERR syntax error"));
            assertThat(c.call("SHUTDOWN", "LATER")).isEqualTo(new RawClient.Error("ERR syntax error"));
            assertThat(c.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void setChecksAnExpiryAndIgnoresItButNotBesideAConditionalOption() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("SET", "ttl:a", "v", "EX", "10")).isEqualTo("OK");
            assertThat(c.call("SET", "ttl:a", "v", "px", "100")).isEqualTo("OK");
            assertThat(c.call("SET", "ttl:a", "v", "KEEPTTL")).isEqualTo("OK");
            assertThat(c.call("SET", "ttl:a", "v", "EX", "0")).isEqualTo(new RawClient.Error(
                    "ERR invalid expire time in 'set' command"));
            assertThat(c.call("SET", "ttl:a", "v", "EX")).isEqualTo(new RawClient.Error("ERR syntax error"));
            assertThat(c.call("SET", "ttl:a", "v", "BOGUS")).isEqualTo(new RawClient.Error("ERR syntax error"));
            assertThat(c.call("SET", "ttl:a", "v", "KEEPTTL", "EX", "5")).isEqualTo(new RawClient.Error(
                    "ERR syntax error"));
            assertThat(c.call("SET", "ttl:a", "v", "NX", "XX")).isEqualTo(new RawClient.Error("ERR syntax error"));
            // a lock that must expire: refused whole, nothing written
            assertThat(((RawClient.Error) c.call("SET", "ttl:lock", "me", "NX", "EX", "30")).text())
                    .startsWith("ERR SET with EX and NX, XX or GET is not supported");
            assertThat(((RawClient.Error) c.call("SET", "ttl:a", "w", "PXAT", "99999999999", "GET")).text())
                    .startsWith("ERR SET with PXAT and NX, XX or GET is not supported");
            assertThat(c.call("GET", "ttl:lock")).isNull();
            assertThat(text(c.call("GET", "ttl:a"))).isEqualTo("v");
        }
    }

    @Test
    void dbsizeCountsKeys() throws Exception {
        try (RawClient c = fixture.client()) {
            long before = (Long) c.call("DBSIZE");
            c.call("SET", "size:1", "x");
            c.call("SET", "size:2", "x");
            assertThat(c.call("DBSIZE")).isEqualTo(before + 2);
            c.call("DEL", "size:1", "size:2");
        }
    }

    @Test
    void infoHasTheSectionsToolsRead() throws Exception {
        try (RawClient c = fixture.client()) {
            c.call("SET", "info:k", "v");
            String info = text(c.call("INFO"));
            assertThat(info).contains("# Server\r\n", "redis_version:7.0.0\r\n", "redis_mode:standalone",
                    "tcp_port:" + fixture.port(), "# Keyspace\r\n", "db0:keys=");
            assertThat(text(c.call("INFO", "keyspace"))).startsWith("# Keyspace").doesNotContain("# Server");
        }
    }

    @Test
    void configGetAnswersWhatRedisBenchmarkAsks() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat((List<?>) c.call("CONFIG", "GET", "save")).extracting(RawClient::text)
                    .containsExactly("save", "");
            assertThat((List<?>) c.call("CONFIG", "GET", "appendonly")).extracting(RawClient::text)
                    .containsExactly("appendonly", "no");
            assertThat((List<?>) c.call("CONFIG", "GET", "nothing-like-this")).isEmpty();
            assertThat(((List<?>) c.call("CONFIG", "GET", "*")).size()).isGreaterThanOrEqualTo(4);
            assertThat(c.call("CONFIG", "SET", "save", "")).isInstanceOf(RawClient.Error.class);
        }
    }

    @Test
    void commandAndCommandDocsAreEmpty() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat((List<?>) c.call("COMMAND")).isEmpty();
            assertThat((List<?>) c.call("COMMAND", "DOCS")).isEmpty();
            assertThat(c.call("COMMAND", "COUNT")).isEqualTo(0L);
        }
    }

    @Test
    void unknownCommandSaysSoLikeRedis() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(c.call("FLUSHALL")).isEqualTo(new RawClient.Error(
                    "ERR unknown command 'FLUSHALL', with args beginning with: "));
            assertThat(c.call("foo", "a", "b")).isEqualTo(new RawClient.Error(
                    "ERR unknown command 'foo', with args beginning with: 'a' 'b' "));
            assertThat(c.call("GET")).isEqualTo(new RawClient.Error(
                    "ERR wrong number of arguments for 'get' command"));
            assertThat(c.call("PING")).isEqualTo("PONG"); // the connection goes on
        }
    }

    @Test
    void helloTwoClientAndSelect() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(((RawClient.Error) c.call("HELLO", "3")).text()).startsWith("NOPROTO");
            List<?> hello = (List<?>) c.call("HELLO", "2", "SETNAME", "tester");
            assertThat(text(hello.get(0))).isEqualTo("server");
            assertThat(hello.get(5)).isEqualTo(2L);
            assertThat(text(c.call("CLIENT", "GETNAME"))).isEqualTo("tester");
            assertThat(c.call("CLIENT", "SETNAME", "other")).isEqualTo("OK");
            assertThat(text(c.call("CLIENT", "GETNAME"))).isEqualTo("other");
            assertThat(c.call("CLIENT", "SETINFO", "lib-name", "x")).isEqualTo("OK");
            assertThat(c.call("CLIENT", "KILL", "x")).isInstanceOf(RawClient.Error.class);
            assertThat(c.call("SELECT", "0")).isEqualTo("OK");
            assertThat(c.call("SELECT", "1")).isInstanceOf(RawClient.Error.class);
        }
    }

    @Test
    void elasticResizeAndStats() throws Exception {
        try (RawClient c = fixture.client()) {
            c.call("SET", "elastic:k", "v");
            assertThat(c.call("ELASTIC.RESIZE", Integer.toString(8 << 20))).isEqualTo("OK");
            assertThat(c.call("elastic.resize", "-1")).isInstanceOf(RawClient.Error.class);
            assertThat(((RawClient.Error) c.call("ELASTIC.RESIZE", "lots")).text())
                    .startsWith("ERR value is not an integer or out of range");
            String stats = text(c.call("ELASTIC.STATS"));
            assertThat(stats).contains("entries:", "memory_budget_bytes:", "hits:", "resize_target_bytes:" + (8 << 20));
            assertThat(c.call("ELASTIC.RESIZE", Integer.toString(16 << 20))).isEqualTo("OK");
        }
    }

    @Test
    void inlineCommandsWork() throws Exception {
        try (RawClient c = fixture.client()) {
            c.send("SET inline:k hello\r\nGET inline:k\r\n\r\nPING\r\n");
            assertThat(c.read()).isEqualTo("OK");
            assertThat(text(c.read())).isEqualTo("hello");
            assertThat(c.read()).isEqualTo("PONG");
        }
    }

    @Test
    void binaryKeysAndValuesRoundTrip() throws Exception {
        byte[] key = new byte[256];
        byte[] value = new byte[60_000];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) i;
        }
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 31);
        }
        try (RawClient c = fixture.client()) {
            assertThat(c.call("SET", key, value)).isEqualTo("OK");
            assertThat((byte[]) c.call("GET", key)).isEqualTo(value);
            assertThat(c.call("EXISTS", key)).isEqualTo(1L);
            byte[] crlfKey = "a\r\nb".getBytes(StandardCharsets.US_ASCII);
            assertThat(c.call("SET", crlfKey, "v")).isEqualTo("OK");
            assertThat(text(c.call("GET", crlfKey))).isEqualTo("v");
        }
    }

    @Test
    void storeLimitsAreErrorsNotDisconnects() throws Exception {
        try (RawClient c = fixture.client()) {
            Object reply = c.call("SET", "k".repeat(2000), "v");
            assertThat(reply).isInstanceOf(RawClient.Error.class);
            assertThat(((RawClient.Error) reply).text()).startsWith("ERR ");
            assertThat(c.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void anMgetOfManyLargeValuesIsAnsweredWholeUpTo64MiBAndRefusedPastItOnAConnectionThatGoesOn()
            throws Exception {
        byte[] value = new byte[64 * 1024 - 64];
        new java.util.SplittableRandom(11).nextBytes(value);
        try (RawClient c = fixture.client()) {
            assertThat(c.call("SET", "mget:large", value)).isEqualTo("OK");
            Object[] under = new Object[1 + 1000]; // 62 MiB of reply
            Object[] over = new Object[1 + 1100];
            java.util.Arrays.fill(under, "mget:large");
            java.util.Arrays.fill(over, "mget:large");
            under[0] = "MGET";
            over[0] = "MGET";

            List<?> answered = (List<?>) c.call(under);
            Object refused = c.call(over);

            assertThat(answered).hasSize(1000).allSatisfy(v -> assertThat((byte[]) v).isEqualTo(value));
            assertThat(((RawClient.Error) refused).text()).startsWith("ERR MGET reply larger than 67108864 bytes "
                    + "after ").endsWith(" of 1100 keys; ask for fewer keys at once");
            assertThat(c.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void setWithTwoExpiriesIsASyntaxErrorAsInRedis() throws Exception {
        try (RawClient c = fixture.client()) {
            assertThat(((RawClient.Error) c.call("SET", "ttl", "v", "EX", "1", "PX", "1")).text())
                    .isEqualTo("ERR syntax error");
            assertThat(((RawClient.Error) c.call("SET", "ttl", "v", "EX", "1", "EX", "2")).text())
                    .isEqualTo("ERR syntax error");
            assertThat(c.call("SET", "ttl", "v", "PX", "100")).isEqualTo("OK");
            assertThat(c.call("EXISTS", "ttl")).isEqualTo(1L);
        }
    }

    @Test
    void quitAnswersOkThenCloses() throws Exception {
        try (RawClient c = fixture.client()) {
            c.send(concat(RawClient.encode("QUIT"), RawClient.encode("PING")));
            assertThat(c.read()).isEqualTo("OK");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }
}
