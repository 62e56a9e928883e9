package io.elastikey.keyserver.config;

import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options every key-server command shares ({@code keyserver}, {@code keys ...}), as a
 * picocli mixin, so the server and the key-management commands always agree on the data
 * directory, the key-encryption key and the store.
 */
public final class ConfigOptions {
    @Option(names = "--config", paramLabel = "FILE",
            description = "Config file (Java properties syntax; see docs/keyserver.md). Default: none.")
    Path configFile;

    @Option(names = "--data", paramLabel = "DIR",
            description = "Data directory: keys, KEK, dev PKI and policy live here by default. "
                    + "Default: ./" + KeyServerConfig.DEFAULT_DATA_DIR + " (or the config file's 'data').")
    Path dataDir;

    @Option(names = "--set", paramLabel = "NAME=VALUE",
            description = "Override one setting, e.g. --set listen=0.0.0.0:8443 (repeatable). "
                    + "Environment variables ELASTIKEY_<NAME> override the file too.")
    Map<String, String> overrides = new LinkedHashMap<>();

    /** The configuration these options, the environment and the config file describe. */
    public KeyServerConfig load() {
        Map<String, String> flags = new LinkedHashMap<>(overrides);
        if (dataDir != null) {
            flags.put("data", dataDir.toString());
        }
        try {
            return KeyServerConfig.from(new ConfigSource(flags, System.getenv(), configFile));
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + configFile + ": " + e.getMessage(), e);
        }
    }
}
