package io.elastikey.protocol.config;

import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options every server command shares ({@code keyserver}, {@code keys ...}, {@code edge}), as a
 * picocli mixin, so a server and the commands that prepare its files always agree on the data
 * directory and the config file.
 */
public final class ConfigOptions {
    /** The data directory when no layer names one. */
    public static final String DEFAULT_DATA_DIR = "elastikey-data";

    @Option(names = "--config", paramLabel = "FILE",
            description = "Config file (Java properties syntax; see docs/keyserver.md). Default: none.")
    Path configFile;

    @Option(names = "--data", paramLabel = "DIR",
            description = "Data directory: keys, KEK, dev PKI and policy live here by default. "
                    + "Default: ./" + DEFAULT_DATA_DIR + " (or the config file's 'data').")
    Path dataDir;

    @Option(names = "--set", paramLabel = "NAME=VALUE",
            description = "Override one setting, e.g. --set listen=0.0.0.0:8443 (repeatable). "
                    + "Environment variables ELASTIKEY_<NAME> override the file too.")
    Map<String, String> overrides = new LinkedHashMap<>();

    /**
     * Settings of a command's own shortcut flags, kept apart from {@link #overrides}: picocli replaces that map with a
     * new one at the first {@code --set}, which silently dropped a shortcut given before it
     * ({@code keyserver --store redis://... --set listen=...} served from the default ElasticStore).
     */
    private final Map<String, String> shortcuts = new LinkedHashMap<>();

    /** Sets {@code name} as {@code --set name=value} would: for a command's own shortcut flags (e.g. {@code --store}). */
    public void set(String name, String value) {
        shortcuts.put(name, value);
    }

    /** The settings these options, the environment and the config file describe. */
    public ConfigSource source() {
        Map<String, String> flags = new LinkedHashMap<>(overrides);
        flags.putAll(shortcuts);
        if (dataDir != null) {
            flags.put("data", dataDir.toString());
        }
        try {
            return new ConfigSource(flags, System.getenv(), configFile);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + configFile + ": " + e.getMessage(), e);
        }
    }
}
