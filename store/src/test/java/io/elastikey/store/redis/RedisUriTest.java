// RedisUriTest -- parsing of every location form, options, and that passwords never show.
package io.elastikey.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.Stores;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisUriTest {

    @Test
    void standaloneWithAclUserDatabaseAndOptions() {
        RedisStoreConfig config = RedisStoreConfig.parse(
                "redis://alice:s3cret@127.0.0.1:6380/2?prefix=ek%3Akeys%3A&timeout=500ms&connect-timeout=1s&batch=64");
        assertThat(config.uri().mode()).isEqualTo(RedisUri.Mode.STANDALONE);
        assertThat(config.uri().tls()).isFalse();
        assertThat(new String(config.prefix())).isEqualTo("ek:keys:");
        assertThat(config.commandTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.batchSize()).isEqualTo(64);
        var node = config.uri().nodes().get(0);
        assertThat(node.getUsername()).isEqualTo("alice");
        assertThat(new String(node.getPassword())).isEqualTo("s3cret");
        assertThat(node.getDatabase()).isEqualTo(2);
        assertThat(node.getPort()).isEqualTo(6380);
        assertThat(config.uri().toString()).isEqualTo(
                "redis://alice:***@127.0.0.1:6380/2?prefix=ek%3Akeys%3A&timeout=500ms&connect-timeout=1s&batch=64");
    }

    @Test
    void clusterFormsSplitSeedsAndShareCredentials() {
        for (String text : new String[] {"redis-cluster://:pw@10.0.0.1:7000,10.0.0.2:7001",
                                         "redis://:pw@10.0.0.1:7000,10.0.0.2:7001?cluster=true"}) {
            RedisUri uri = RedisUri.parse(text);
            assertThat(uri.mode()).isEqualTo(RedisUri.Mode.CLUSTER);
            assertThat(uri.nodes()).hasSize(2);
            assertThat(uri.nodes().get(1).getPort()).isEqualTo(7001);
            assertThat(new String(uri.nodes().get(1).getPassword())).isEqualTo("pw");
            assertThat(uri.toString()).doesNotContain("pw");
        }
        assertThat(RedisUri.parse("rediss-cluster://h:1").nodes().get(0).isSsl()).isTrue();
    }

    @Test
    void sentinelNamesItsMaster() {
        RedisUri uri = RedisUri.parse("redis-sentinel://:pw@s1:26379,s2:26380/1#mymaster");
        assertThat(uri.mode()).isEqualTo(RedisUri.Mode.SENTINEL);
        assertThat(uri.nodes().get(0).getSentinelMasterId()).isEqualTo("mymaster");
        assertThat(uri.nodes().get(0).getSentinels()).hasSize(2);
        assertThatThrownBy(() -> RedisUri.parse("redis-sentinel://:pw@s1:26379"))
                .hasMessageContaining("#mymaster").hasMessageNotContaining("pw@");
    }

    @Test
    void badLocationsFailNamingTheProblemWithoutThePassword() {
        assertThatThrownBy(() -> RedisStoreConfig.parse("redis://u:hunter2@h:1?timout=1s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown option 'timout'")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> RedisStoreConfig.parse("redis://u:hunter2@h:1?cacert=/ca.pem"))
                .hasMessageContaining("rediss://").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> RedisStoreConfig.parse("redis://u:hunter2@h:1?timeout=0s"))
                .hasMessageContaining("timeout").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> RedisUri.parse("redis://h1:1,h2:2")).hasMessageContaining("cluster");
    }

    @Test
    void storesTellsDirectoriesFromRedis() {
        assertThat(Stores.isRedis("rediss-sentinel://h#m")).isTrue();
        assertThat(Stores.isRedis("/var/lib/elastikey/keys")).isFalse();
        assertThat(Stores.describe("redis://:pw@h:1")).isEqualTo("redis://:***@h:1");
        assertThat(Stores.describe("/data/keys")).isEqualTo("/data/keys");
    }
}
