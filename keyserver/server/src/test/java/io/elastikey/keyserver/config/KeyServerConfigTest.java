package io.elastikey.keyserver.config;

import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.protocol.config.Values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.elastic.FsyncPolicy;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The settings of docs/keyserver.md: their defaults, where a value comes from (flags over environment over file
 * over default), and refusal of anything wrong, a misspelt name or a bad value, with a message that names the
 * setting, so a server never starts on a configuration other than the one its operator meant.
 */
class KeyServerConfigTest {
    @TempDir
    Path dir;

    @Test
    void defaultsAreTheDocumentedOnes() {
        KeyServerConfig config = KeyServerConfig.defaults(dir);
        Path data = dir.toAbsolutePath().normalize();

        assertThat(config.dataDir()).isEqualTo(data);
        assertThat(config.listen()).isEqualTo(new InetSocketAddress("127.0.0.1", 8443));
        assertThat(config.adminListen()).isEqualTo(new InetSocketAddress("127.0.0.1", 9080));
        assertThat(config.tlsCertificate()).isEqualTo(data.resolve("pki/server.pem"));
        assertThat(config.tlsKey()).isEqualTo(data.resolve("pki/server.key"));
        assertThat(config.tlsClientCa()).isEqualTo(data.resolve("pki/ca.pem"));
        assertThat(config.tlsCrl()).isNull();
        assertThat(config.tlsProvider()).isEqualTo(KeyServerConfig.TlsProvider.AUTO);
        assertThat(config.reloadInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.policyFile()).isEqualTo(data.resolve("policy.conf"));
        assertThat(config.kekFile()).isEqualTo(data.resolve("kek"));
        assertThat(config.keyCacheBytes()).isEqualTo(512L << 20);
        assertThat(config.storeMemoryBytes()).isEqualTo(128L << 20);
        assertThat(config.storeFsync()).isEqualTo(FsyncPolicy.GROUP);
        assertThat(config.maxBodyBytes()).isEqualTo(16 << 10);
        assertThat(config.maxHeaderBytes()).isEqualTo(8 << 10);
        assertThat(config.maxConnections()).isEqualTo(10_000);
        assertThat(config.maxStreams()).isEqualTo(256);
        assertThat(config.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.idleTimeout()).isEqualTo(Duration.ofSeconds(120));
        assertThat(config.requestDeadline()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.requestRead()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.revealDenied()).as("a denied key answers as an unknown one").isFalse();
        assertThat(config.cryptoWorkers()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(config.ioThreads()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(config.cryptoQueue()).isEqualTo(4096);
        assertThat(config.keyLoaders()).isEqualTo(16);
        assertThat(config.cryptoProvider()).isEqualTo("auto");
        assertThat(config.nativeP256()).isTrue();
        assertThat(config.usesDevelopmentPki()).isTrue();
        assertThat(config.storeConfig().directory()).isEqualTo(data.resolve("keys"));
    }

    @Test
    void withNoDataSettingTheDataDirectoryIsElastikeyDataHere() {
        KeyServerConfig config = KeyServerConfig.from(ConfigSource.empty());

        assertThat(config.dataDir()).isEqualTo(Path.of("elastikey-data").toAbsolutePath().normalize());
    }

    @Test
    void flagsOverrideTheEnvironmentWhichOverridesTheFileWhichOverridesTheDefault() throws Exception {
        Path file = dir.resolve("keyserver.conf");
        Files.writeString(file, """
                # Java properties syntax
                listen = 127.0.0.1:1001
                admin.listen = 127.0.0.1:2001
                limits.body = 32k
                """);
        Map<String, String> environment = Map.of("ELASTIKEY_LISTEN", "127.0.0.1:1002",
                "ELASTIKEY_ADMIN_LISTEN", "127.0.0.1:2002");
        Map<String, String> flags = Map.of("listen", "127.0.0.1:1003");

        KeyServerConfig all = KeyServerConfig.from(new ConfigSource(flags, environment, file));
        KeyServerConfig noFlags = KeyServerConfig.from(new ConfigSource(Map.of(), environment, file));
        KeyServerConfig fileOnly = KeyServerConfig.from(new ConfigSource(Map.of(), Map.of(), file));

        assertThat(all.listen().getPort()).isEqualTo(1003);
        assertThat(all.adminListen().getPort()).isEqualTo(2002);
        assertThat(all.maxBodyBytes()).isEqualTo(32 << 10);
        assertThat(all.maxHeaderBytes()).as("default").isEqualTo(8 << 10);
        assertThat(noFlags.listen().getPort()).isEqualTo(1002);
        assertThat(fileOnly.listen().getPort()).isEqualTo(1001);
        assertThat(fileOnly.adminListen().getPort()).isEqualTo(2001);
    }

    @Test
    void environmentNamesAreUpperCaseWithUnderscores() {
        Map<String, String> environment = Map.of(
                "ELASTIKEY_TLS_CLIENT_CA", "/etc/elastikey/clients.pem",
                "ELASTIKEY_TLS_RELOAD_INTERVAL", "500ms",
                "ELASTIKEY_CRYPTO_WORKERS", "3");

        KeyServerConfig config = config(Map.of(), environment);

        assertThat(ConfigSource.environmentName("tls.client-ca")).isEqualTo("ELASTIKEY_TLS_CLIENT_CA");
        assertThat(config.tlsClientCa()).isEqualTo(Path.of("/etc/elastikey/clients.pem"));
        assertThat(config.reloadInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.cryptoWorkers()).isEqualTo(3);
        assertThat(config.usesDevelopmentPki()).isFalse();
    }

    @Test
    void pathsFollowTheDataDirectoryUnlessSet() {
        KeyServerConfig config = config(Map.of("data", dir.resolve("d").toString(),
                "policy", dir.resolve("elsewhere/policy.conf").toString(), "tls.crl", "clients.crl"), Map.of());

        assertThat(config.kekFile()).isEqualTo(dir.resolve("d/kek").toAbsolutePath().normalize());
        assertThat(config.policyFile()).isEqualTo(dir.resolve("elsewhere/policy.conf").toAbsolutePath().normalize());
        assertThat(config.tlsCrl()).isEqualTo(Path.of("clients.crl").toAbsolutePath());
    }

    @Test
    void deniedAnswerIsNotFoundOrDeniedAndNothingElse() {
        assertThat(config(Map.of("authz.denied-answer", "denied"), Map.of()).revealDenied()).isTrue();
        assertThat(config(Map.of("authz.denied-answer", "not-found"), Map.of()).revealDenied()).isFalse();
        assertThatThrownBy(() -> config(Map.of("authz.denied-answer", "403"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("authz.denied-answer");
        assertThatThrownBy(() -> config(Map.of("timeouts.request-read", "0s"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("timeouts.request-read");
    }

    @Test
    void misspeltFlagIsRejectedByName() {
        assertThatThrownBy(() -> config(Map.of("limits.bdy", "32k"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("limits.bdy");
    }

    @Test
    void misspeltFileSettingIsRejectedNamingItAndTheFile() throws Exception {
        Path file = dir.resolve("keyserver.conf");
        Files.writeString(file, "listen = 127.0.0.1:1001\ntls.reload_interval = 5s\ncrypto.worker = 4\n");

        assertThatThrownBy(() -> KeyServerConfig.from(new ConfigSource(Map.of(), Map.of(), file)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tls.reload_interval")
                .hasMessageContaining("crypto.worker")
                .hasMessageContaining(file.toString())
                .hasMessageNotContaining("listen");
    }

    @Test
    void missingConfigFileIsRejectedNamingIt() {
        Path missing = dir.resolve("nope.conf");

        assertThatThrownBy(() -> new ConfigSource(Map.of(), Map.of(), missing))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(missing.toString());
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "limits.body|abc",
            "limits.body|16q",
            "limits.body|-1",
            "limits.body|1.5k",
            "limits.body|100",
            "limits.body|32m",
            "limits.header|0",
            "limits.header|99999999999999999999",
            "store.memory|lots",
            "store.memory|-5m",
            "store.memory|9999999999g",
    })
    void badSizeIsRejectedNamingTheSetting(String setting, String value) {
        assertRejected(setting, value);
    }

    @ParameterizedTest(name = "{0}={1} is {2} bytes")
    @CsvSource(delimiter = '|', value = {
            "limits.body|4096|4096",
            "limits.body|16k|16384",
            "limits.body|16K|16384",
            "limits.body|16kb|16384",
            "limits.body|16KiB|16384",
            "limits.body|1m|1048576",
            "store.memory|2g|2147483648",
    })
    void sizesTakeSuffixes(String setting, String value, long bytes) {
        KeyServerConfig config = config(Map.of(setting, value), Map.of());

        assertThat(setting.equals("store.memory") ? config.storeMemoryBytes() : config.maxBodyBytes())
                .isEqualTo(bytes);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "tls.reload-interval|2",
            "tls.reload-interval|fast",
            "tls.reload-interval|-1s",
            "tls.reload-interval|1d",
            "timeouts.idle|10 seconds",
            "timeouts.idle|ms",
            "timeouts.request|0s",
            "timeouts.handshake|0ms",
    })
    void badDurationIsRejectedNamingTheSetting(String setting, String value) {
        assertRejected(setting, value);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "timeouts.idle|250ms|250",
            "timeouts.idle|10s|10000",
            "timeouts.idle|2m|120000",
    })
    void durationsTakeUnits(String setting, String value, long millis) {
        assertThat(config(Map.of(setting, value), Map.of()).idleTimeout()).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "listen|8443",
            "listen|localhost",
            "listen|127.0.0.1:99999",
            "listen|127.0.0.1:-1",
            "listen|127.0.0.1:https",
            "listen|127.0.0.1:",
            "listen|no-such-host.invalid:8443",
            "admin.listen|::1",
            "admin.listen|[::1]",
    })
    void badAddressIsRejectedNamingTheSetting(String setting, String value) {
        assertRejected(setting, value);
    }

    @Test
    void p256KeysCanBeLeftToTheProvider() {
        assertThat(config(Map.of("crypto.p256", "Provider"), Map.of()).nativeP256()).isFalse();
        assertThat(config(Map.of("crypto.p256", "native"), Map.of()).nativeP256()).isTrue();
        assertThat(config(Map.of(), Map.of("ELASTIKEY_CRYPTO_P256", "provider")).nativeP256()).isFalse();
    }

    @Test
    void addressesTakeEveryDocumentedForm() {
        assertThat(config(Map.of("listen", ":8443"), Map.of()).listen())
                .isEqualTo(new InetSocketAddress(8443));
        assertThat(config(Map.of("listen", "[::1]:8443"), Map.of()).listen())
                .isEqualTo(new InetSocketAddress("::1", 8443));
        assertThat(config(Map.of("listen", "localhost:0"), Map.of()).listen().isUnresolved()).isFalse();
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "tls.provider|boringssl",
            "store.fsync|sometimes",
            "crypto.provider|bc",
            "crypto.p256|openssl",
            "keys.cache|-1",
            "keys.cache|lots",
            "keys.cache|100000",
            "crypto.workers|0",
            "io.threads|0",
            "crypto.queue|many",
            "keys.loaders|0",
            "limits.connections|0",
            "limits.streams|-3",
    })
    void badChoiceOrCountIsRejectedNamingTheSetting(String setting, String value) {
        assertRejected(setting, value);
    }

    @Test
    void badValueFromTheEnvironmentIsRejectedNamingTheSetting() {
        assertThatThrownBy(() -> config(Map.of(), Map.of("ELASTIKEY_LIMITS_BODY", "huge")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("limits.body");
    }

    private void assertRejected(String setting, String value) {
        assertThatThrownBy(() -> config(Map.of(setting, value), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(setting);
    }

    private KeyServerConfig config(Map<String, String> flags, Map<String, String> environment) {
        Map<String, String> all = new HashMap<>(flags);
        all.putIfAbsent("data", dir.toString());
        try {
            return KeyServerConfig.from(new ConfigSource(all, environment, null));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void storeMemoryDefaultsTo128MibOrWhatFitsACgroupLimitBesideTheHeapAndTheKeyCache() {
        long mib = 1L << 20;
        assertThat(KeyServerConfig.defaultStoreMemory(java.util.OptionalLong.empty(), 512 * mib, 512 * mib))
                .isEqualTo(128 * mib);
        // 1.5 GiB cgroup, -Xmx512m and keys.cache=512m: (1536 - 512 - 512 - 128) / 2 = 192, capped at 128
        assertThat(KeyServerConfig.defaultStoreMemory(java.util.OptionalLong.of(1536 * mib), 512 * mib, 512 * mib))
                .isEqualTo(128 * mib);
        // 1.25 GiB: (1280 - 1152) / 2 = 64; 1152 MiB: nothing left for a tier
        assertThat(KeyServerConfig.defaultStoreMemory(java.util.OptionalLong.of(1280 * mib), 512 * mib, 512 * mib))
                .isEqualTo(64 * mib);
        assertThat(KeyServerConfig.defaultStoreMemory(java.util.OptionalLong.of(1152 * mib), 512 * mib, 512 * mib))
                .isZero();
        // The packed keys count because they live off the heap: without the cache the same 1.25 GiB leaves 128.
        assertThat(KeyServerConfig.defaultStoreMemory(java.util.OptionalLong.of(1280 * mib), 512 * mib, 0))
                .isEqualTo(128 * mib);
    }
}
