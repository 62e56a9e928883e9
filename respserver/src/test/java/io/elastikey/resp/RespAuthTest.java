// RespAuthTest -- AUTH, NOAUTH, WRONGPASS and NOPERM as Redis 6+ answers them, on every path a command takes.
package io.elastikey.resp;

import static io.elastikey.resp.RawClient.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, defect 2: anyone who could connect could run anything, ELASTIC.RESIZE included. With
 * users configured, nothing but AUTH, HELLO and QUIT runs before AUTH (not the event loop's
 * fast path for cached GETs, not the batched SETs of several connections either); roles decide
 * the rest. Without users, administration is left to loopback peers.
 */
class RespAuthTest {
    private static final RawClient.Error NOAUTH = new RawClient.Error("NOAUTH Authentication required.");
    private static final RawClient.Error WRONGPASS = new RawClient.Error(
            "WRONGPASS invalid username-password pair or user is disabled.");

    @TempDir
    Path dir;

    private RespFixture serve(RespUsers users) throws Exception {
        return serve(users, "127.0.0.1");
    }

    private RespFixture serve(RespUsers users, String host) throws Exception {
        return new RespFixture(dir.resolve("store"), RespOptions.builder().users(users)
                .resizeBounds(RespFixture.smallBounds()).build(), host);
    }

    private static RespUsers users() {
        return RespUsers.builder().requirePass("s3cret").user("alice:wonder:land:readwrite")
                .user("bob", "builder", RespRole.READONLY).user("ops:0p5:admin").build();
    }

    @Test
    void beforeAuthEveryCommandButAuthHelloAndQuitIsRefused() throws Exception {
        try (RespFixture f = serve(users()); RawClient c = f.client()) {
            f.store.put(bytes("cached"), bytes("v")); // in the memory tier: GET would be answered on the event loop
            assertThat(c.call("GET", "cached")).isEqualTo(NOAUTH);
            assertThat(c.call("PING")).isEqualTo(NOAUTH);
            assertThat(c.call("SET", "k", "v")).isEqualTo(NOAUTH);
            assertThat(c.call("DEL", "cached")).isEqualTo(NOAUTH);
            assertThat(c.call("ELASTIC.RESIZE", "8m")).isEqualTo(NOAUTH);
            assertThat(c.call("INFO")).isEqualTo(NOAUTH);
            assertThat(c.call("CONFIG", "GET", "*")).isEqualTo(NOAUTH);
            assertThat(c.call("NOSUCH", "x")).isEqualTo(NOAUTH);
            assertThat(f.store.contains(bytes("k"))).isFalse();
            assertThat(f.store.contains(bytes("cached"))).isTrue();
            assertThat(f.store.stats().memoryBudgetBytes()).isEqualTo(16 << 20);
            assertThat(c.call("QUIT")).isEqualTo("OK");
        }
    }

    @Test
    void pipelinedSetsBeforeAuthAreRefusedEvenWhenBatchedWithOtherConnections() throws Exception {
        try (RespFixture f = serve(users()); RawClient a = f.client(); RawClient b = f.client()) {
            assertThat(b.call("AUTH", "s3cret")).isEqualTo("OK");
            StringBuilder sets = new StringBuilder();
            for (int i = 0; i < 100; i++) {
                sets.append(new String(RawClient.encode("SET", "p:" + i, "v"), StandardCharsets.ISO_8859_1));
            }
            a.send(sets.toString());
            b.send(sets.toString().replace("p:", "q:"));
            for (int i = 0; i < 100; i++) {
                assertThat(a.read()).isEqualTo(NOAUTH);
                assertThat(b.read()).isEqualTo("OK");
            }
            assertThat(f.store.contains(bytes("p:0"))).isFalse();
            assertThat(f.store.contains(bytes("q:99"))).isTrue();
        }
    }

    @Test
    void authWithThePasswordOrAUserAndRolesDecideWhatRuns() throws Exception {
        try (RespFixture f = serve(users()); RawClient c = f.client()) {
            assertThat(c.call("AUTH", "wrong")).isEqualTo(WRONGPASS);
            assertThat(c.call("AUTH", "alice", "wonder:land:x")).isEqualTo(WRONGPASS);
            assertThat(c.call("AUTH", "nobody", "s3cret")).isEqualTo(WRONGPASS);
            assertThat(c.call("AUTH", "a", "b", "c")).isEqualTo(new RawClient.Error("ERR syntax error"));
            assertThat(c.call("GET", "k")).as("still not authenticated").isEqualTo(NOAUTH);

            assertThat(c.call("AUTH", "alice", "wonder:land")).isEqualTo("OK"); // ':' in a password
            assertThat(c.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(text(c.call("GET", "k"))).isEqualTo("v");
            assertThat(c.call("ELASTIC.RESIZE", "8m")).isEqualTo(new RawClient.Error(
                    "NOPERM User alice has no permissions to run the 'elastic.resize' command"));
            assertThat(c.call("SHUTDOWN")).isEqualTo(new RawClient.Error(
                    "NOPERM User alice has no permissions to run the 'shutdown' command"));
            assertThat(c.call("AUTH", "ops", "wrong")).as("a failed AUTH keeps the user").isEqualTo(WRONGPASS);
            assertThat(c.call("SET", "k", "w")).isEqualTo("OK");

            assertThat(c.call("AUTH", "bob", "builder")).isEqualTo("OK");
            assertThat(text(c.call("GET", "k"))).isEqualTo("w");
            assertThat(c.call("SET", "k", "x")).isEqualTo(new RawClient.Error(
                    "NOPERM User bob has no permissions to run the 'set' command"));
            assertThat(c.call("DEL", "k")).isInstanceOf(RawClient.Error.class);
            assertThat(c.call("UNLINK", "k")).isEqualTo(new RawClient.Error(
                    "NOPERM User bob has no permissions to run the 'unlink' command"));
            assertThat(c.call("MSET", "k", "y", "j", "z")).isEqualTo(new RawClient.Error(
                    "NOPERM User bob has no permissions to run the 'mset' command"));
            for (String update : List.of("INCR", "APPEND", "GETSET", "SETNX", "GETDEL", "DECR")) {
                Object[] args = update.equals("INCR") || update.equals("GETDEL") || update.equals("DECR")
                        ? new Object[] {update, "k"} : new Object[] {update, "k", "1"};
                assertThat(c.call(args)).as(update).isEqualTo(new RawClient.Error("NOPERM User bob has no "
                        + "permissions to run the '" + update.toLowerCase(java.util.Locale.ROOT) + "' command"));
            }
            assertThat(c.call("SET", "k", "y", "NX")).isInstanceOf(RawClient.Error.class);
            assertThat(c.call("STRLEN", "k")).as("a read").isEqualTo(1L);
            assertThat(text(c.call("GET", "k"))).isEqualTo("w");

            assertThat(c.call("AUTH", "ops", "0p5")).isEqualTo("OK");
            assertThat(c.call("ELASTIC.RESIZE", "8m")).isEqualTo("OK");
            assertThat(c.call("AUTH", "s3cret")).as("requirepass is the default user, an admin").isEqualTo("OK");
            assertThat(c.call("ELASTIC.RESIZE", "12m")).isEqualTo("OK");
            assertThat(f.store.stats().memoryBudgetBytes()).isEqualTo(12 << 20);
        }
    }

    @Test
    void helloAuthenticatesWithItsAuthOptionOnly() throws Exception {
        try (RespFixture f = serve(users()); RawClient c = f.client()) {
            assertThat(((RawClient.Error) c.call("HELLO", "2")).text()).startsWith("NOAUTH HELLO must be called");
            assertThat(c.call("HELLO", "2", "AUTH", "alice", "nope")).isEqualTo(WRONGPASS);
            assertThat(((RawClient.Error) c.call("HELLO", "3", "AUTH", "alice", "wonder:land")).text())
                    .startsWith("NOPROTO");
            assertThat(c.call("GET", "k")).isEqualTo(NOAUTH);
            List<?> hello = (List<?>) c.call("HELLO", "2", "AUTH", "alice", "wonder:land", "SETNAME", "me");
            assertThat(text(hello.get(0))).isEqualTo("server");
            assertThat(text(c.call("CLIENT", "GETNAME"))).isEqualTo("me");
            assertThat(c.call("SET", "k", "v")).isEqualTo("OK");
        }
    }

    @Test
    void withoutUsersAuthIsAnErrorAndLoopbackPeersMayAdminister() throws Exception {
        try (RespFixture f = serve(RespUsers.none()); RawClient c = f.client()) {
            assertThat(((RawClient.Error) c.call("AUTH", "x")).text())
                    .startsWith("ERR AUTH <password> called without any password configured");
            assertThat(c.call("AUTH", "someone", "x")).isEqualTo(WRONGPASS);
            assertThat(c.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(c.call("ELASTIC.RESIZE", "8m")).isEqualTo("OK");
        }
    }

    @Test
    void withoutUsersPeersFromTheNetworkMayNotAdminister() throws Exception {
        InetAddress external = nonLoopbackAddress();
        assumeThat(external).as("a non-loopback IPv4 address on this machine").isNotNull();
        try (RespFixture f = serve(RespUsers.none(), "0.0.0.0");
             RawClient c = new RawClient(new InetSocketAddress(external, f.port()))) {
            assertThat(c.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(((RawClient.Error) c.call("ELASTIC.RESIZE", "8m")).text()).isEqualTo("NOPERM "
                    + "'elastic.resize' is allowed only from a loopback address while no password is configured "
                    + "(--requirepass, --user or --users-file)");
            assertThat(((RawClient.Error) c.call("SHUTDOWN")).text()).startsWith("NOPERM 'shutdown' is allowed "
                    + "only from a loopback address");
            assertThat(f.store.stats().memoryBudgetBytes()).isEqualTo(16 << 20);
        }
    }

    @Test
    void usersAreCheckedWhenConfiguredAndNeverPrinted() {
        assertThat(users().toString()).contains("alice (readwrite)", "ops (admin)").doesNotContain("wonder", "0p5",
                "s3cret");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> RespUsers.builder()
                .user("eve:pa55word:root"))).hasMessage("--user 'eve:***:root': unknown role 'root' (expected admin, "
                + "readwrite or readonly)");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> RespUsers.builder()
                .user("eve:pa55word"))).hasMessageNotContaining("pa55word");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> RespUsers.builder().requirePass("a")
                .user("default:b:readonly"))).hasMessageContaining("defined twice");
    }

    @Test
    void aUsersFileMayHoldPasswordDigests() throws Exception {
        String digest = java.util.HexFormat.of().formatHex(RespUsers.sha256(bytes("hashed pw")));
        Path file = java.nio.file.Files.writeString(dir.resolve("users"),
                "# name:password:role\n\ncarol:#" + digest + ":admin\n");
        try (RespFixture f = serve(RespUsers.builder().file(file).build()); RawClient c = f.client()) {
            assertThat(c.call("AUTH", "carol", "#" + digest)).isEqualTo(WRONGPASS);
            assertThat(c.call("AUTH", "carol", "hashed pw")).isEqualTo("OK");
        }
    }

    private static InetAddress nonLoopbackAddress() throws java.net.SocketException {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nic.isUp() && !nic.isLoopback()) {
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a instanceof Inet4Address) {
                        return a;
                    }
                }
            }
        }
        return null;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
