// RedisDeploymentsTest -- RedisStore on a real Cluster, behind a Sentinel, with a password, an ACL user and TLS.
package io.elastikey.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisDeploymentsTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What this test checks is where keys go, not speed: a loaded CI machine gets a generous command timeout. */
    @Test
    void clusterSpreadsKeysOverThreeMastersAndSizeAndForEachSeeThemAll() throws Exception {
        try (RedisServers.Cluster cluster = RedisServers.cluster(dir);
             RedisStore store = RedisStore.open(cluster.uri() + "?batch=50&timeout=15s")) {
            List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                entries.add(Map.entry(b("key-" + i), b("value-" + i)));
            }
            store.putAll(entries);
            store.put(b("single"), b("one"));
            for (RedisServer node : cluster.nodes()) {
                assertThat(Long.parseLong(node.cli("dbsize").strip())).as("keys on master " + node.port())
                        .isPositive();
            }
            assertThat(store.size()).isEqualTo(601);
            Set<String> seen = new HashSet<>();
            store.forEach((k, v) -> {
                String key = new String(k, StandardCharsets.UTF_8);
                seen.add(key);
                if (!key.equals("single")) {
                    assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo(key.replace("key", "value"));
                }
            });
            assertThat(seen).hasSize(601);
            assertThat(store.get(b("key-599"))).isEqualTo(b("value-599"));
            assertThat(store.delete(b("key-599"))).isTrue();
            assertThat(store.stats().memoryBytes()).as("used_memory summed over masters").isPositive();
        }
        try (RedisServers.Cluster cluster = RedisServers.cluster(dir.resolve("prefixed"));
             RedisStore store = RedisStore.open(cluster.uri() + "?prefix=ns:&timeout=15s")) {
            store.put(b("a"), b("1"));
            cluster.nodes().get(0).cli("-c", "set", "outside", "x");
            assertThat(store.size()).as("SCAN count over every master").isEqualTo(1);
        }
    }

    /**
     * A batch whose key's slot moved to another master after the store learned the topology: the master it goes to
     * answers MOVED and Lettuce re-sends the SET to the new owner. The re-sent command must be written at once; a
     * batch connection that buffered commands until its one flush left it unsent, and the batch waited out its
     * timeout (the cluster test's intermittent 15 s hang).
     */
    @Test
    void aNoticeAnnouncedOnAClusterReachesEveryFollowerOfItsPrefixAndNoOther() throws Exception {
        try (RedisServers.Cluster cluster = RedisServers.cluster(dir.resolve("notices"));
             RedisStore writer = RedisStore.open(cluster.uri() + "?prefix=ek:&timeout=15s");
             RedisStore reader = RedisStore.open(cluster.uri() + "?prefix=ek:&timeout=15s");
             RedisStore elsewhere = RedisStore.open(cluster.uri() + "?prefix=other:&timeout=15s")) {
            HeardNotices heard = new HeardNotices();
            HeardNotices heardElsewhere = new HeardNotices();
            try (AutoCloseable following = reader.follow(heard);
                 AutoCloseable alsoFollowing = elsewhere.follow(heardElsewhere)) {
                for (int i = 0; i < 20; i++) {
                    writer.announce(b("forget " + i));
                }
                for (int i = 0; i < 20; i++) {
                    assertThat(heard.next()).isEqualTo("forget " + i);
                }
                elsewhere.announce(b("marker"));
                assertThat(heardElsewhere.next()).as("the other prefix hears only its own")
                        .isEqualTo("marker");
                assertThat(heard.next(Duration.ZERO)).isNull();
            }
            writer.announce(b("after the follow closed"));
            assertThat(heard.next(Duration.ofSeconds(1))).isNull();
        }
    }

    @Test
    void aBatchFollowsASlotThatMovedToAnotherMaster() throws Exception {
        try (RedisServers.Cluster cluster = RedisServers.cluster(dir);
             RedisStore store = RedisStore.open(cluster.uri() + "?batch=50&timeout=15s")) {
            store.put(b("warm"), b("up")); // the batch connection exists, with the topology of now
            String key = "moving-key";
            RedisServer first = cluster.nodes().get(0);
            int slot = Integer.parseInt(first.cli("cluster", "keyslot", key).strip());
            RedisServer owner = null;
            for (RedisServer node : cluster.nodes()) {
                if (node.cli("cluster", "countkeysinslot", String.valueOf(slot)).strip().equals("0")
                        && node.cli("cluster", "nodes").lines().anyMatch(l -> l.contains("myself")
                        && ownsSlot(l, slot))) {
                    owner = node;
                }
            }
            assertThat(owner).as("the master of slot " + slot).isNotNull();
            RedisServer target = cluster.nodes().get(cluster.nodes().get(0) == owner ? 1 : 0);
            String targetId = target.cli("cluster", "myid").strip();
            target.cli("cluster", "setslot", String.valueOf(slot), "node", targetId);
            owner.cli("cluster", "setslot", String.valueOf(slot), "node", targetId);
            target.cli("cluster", "bumpepoch");

            store.putAll(List.of(Map.entry(b(key), b("moved"))));

            assertThat(target.cli("get", key).strip()).isEqualTo("moved");
            assertThat(store.get(b(key))).isEqualTo(b("moved"));
        }
    }

    /** Whether a {@code CLUSTER NODES} line lists {@code slot} among its slot ranges. */
    private static boolean ownsSlot(String nodesLine, int slot) {
        String[] fields = nodesLine.split(" ");
        for (int i = 8; i < fields.length; i++) {
            String[] range = fields[i].split("-");
            if (range[0].startsWith("[")) {
                continue;
            }
            int from = Integer.parseInt(range[0]);
            int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
            if (from <= slot && slot <= to) {
                return true;
            }
        }
        return false;
    }

    @Test
    void sentinelFindsTheMaster() throws Exception {
        try (RedisServer master = RedisServers.standalone(dir, "requirepass masterpw");
             RedisServer sentinel = RedisServers.sentinel(dir, master, "mymaster");
             RedisStore store = RedisStore.open("redis-sentinel://:masterpw@127.0.0.1:" + sentinel.port()
                     + "#mymaster")) {
            store.put(b("via-sentinel"), b("yes"));
            assertThat(master.cli("-a", "masterpw", "--no-auth-warning", "get", "via-sentinel").strip())
                    .isEqualTo("yes");
            assertThat(store.get(b("via-sentinel"))).isEqualTo(b("yes"));
        }
    }

    @Test
    void passwordAndAclUserWorkAndAWrongOneIsAClearErrorWithoutThePassword() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir, "requirepass topsecret",
                "user alice on >alicepw ~ek:* +@all")) {
            String base = "127.0.0.1:" + redis.port();
            try (RedisStore store = RedisStore.open("redis://:topsecret@" + base)) {
                store.put(b("k"), b("default user"));
            }
            try (RedisStore store = RedisStore.open("redis://alice:alicepw@" + base + "?prefix=ek:")) {
                store.put(b("k"), b("alice"));
                assertThat(store.get(b("k"))).isEqualTo(b("alice"));
            }
            assertThatThrownBy(() -> RedisStore.open("redis://alice:wrongpw@" + base))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("redis://alice:***@" + base)
                    .hasMessageContaining("WRONGPASS")
                    .hasMessageNotContaining("wrongpw");
            assertThatThrownBy(() -> RedisStore.open("redis://" + base))
                    .isInstanceOf(StoreException.class).hasMessageContaining("NOAUTH");
            try (RedisStore store = RedisStore.open("redis://alice:alicepw@" + base + "?prefix=other:")) {
                assertThatThrownBy(() -> store.put(b("k"), b("v")))
                        .isInstanceOf(StoreException.class).hasMessageContaining("NOPERM");
            }
        }
    }

    @Test
    void tlsWithTheServersCaAndAClientCertificate() throws Exception {
        assumeTrue(RedisServers.supportsTls(), "this redis-server was built without TLS (BUILD_TLS=no)");
        RedisServers.TlsFiles files;
        try {
            files = RedisServers.TlsFiles.create(dir.resolve("tls"));
        } catch (java.io.IOException e) {
            assumeTrue(false, "cannot mint test certificates with openssl: " + e.getMessage());
            return;
        }
        try (RedisServer redis = RedisServers.tls(dir, files)) {
            String uri = "rediss://127.0.0.1:" + redis.port() + "?cacert=" + files.ca() + "&cert="
                    + files.clientCertificate() + "&key=" + files.clientKey();
            try (RedisStore store = RedisStore.open(uri)) {
                store.put(b("over-tls"), b("yes"));
                assertThat(store.get(b("over-tls"))).isEqualTo(b("yes"));
            }
            assertThatThrownBy(() -> RedisStore.open("rediss://127.0.0.1:" + redis.port() + "?timeout=1s"))
                    .as("the JDK's trust store does not know the test CA").isInstanceOf(StoreException.class)
                    .hasMessageContaining("cannot connect");
        }
    }
}
