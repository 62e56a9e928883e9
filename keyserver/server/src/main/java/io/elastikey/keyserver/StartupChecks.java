// StartupChecks -- the key server's paths checked before anything opens, each failure naming its setting.
package io.elastikey.keyserver;

import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.config.SettingPaths;
import io.elastikey.store.Stores;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * Runs first in {@link KeyServer#start}: the data directory (and the key store's, when it is a directory) must be
 * writable, the development files are created when the configuration asks for them, and every file a setting names
 * must then be readable. A failure is one {@link ConfigException} line naming the setting, the path and the reason,
 * before the store is opened or a port bound.
 */
final class StartupChecks {
    private StartupChecks() {
    }

    static void run(KeyServerConfig config) throws IOException, GeneralSecurityException {
        SettingPaths.requireWritableDirectory("data", config.dataDir(), "the data directory");
        if (!Stores.isRedis(config.store())) {
            SettingPaths.requireWritableDirectory("store", Path.of(config.store()), "the key store's directory");
        }
        DevelopmentSetup.prepare(config);
        SettingPaths.requireReadableFile("tls.certificate", config.tlsCertificate());
        SettingPaths.requireReadableFile("tls.key", config.tlsKey());
        SettingPaths.requireReadableFile("tls.client-ca", config.tlsClientCa());
        if (config.tlsCrl() != null) {
            SettingPaths.requireReadableFile("tls.crl", config.tlsCrl());
        }
        requirePolicy(config);
    }

    private static void requirePolicy(KeyServerConfig config) {
        Path policy = config.policyFile();
        if (Files.exists(policy) || config.policyGiven()) {
            SettingPaths.requireReadableFile("policy", policy);
            return;
        }
        String remedy = config.dev()
                ? "dev = true writes a development policy only with the development PKI (tls.* at their defaults)"
                : "start with --dev (dev = true) to have a development policy written there that grants the "
                        + "development client every key";
        throw new ConfigException("policy: no policy file at " + policy + " (the default of the 'policy' setting): "
                + "write one (docs/authorization.md), or " + remedy);
    }
}
