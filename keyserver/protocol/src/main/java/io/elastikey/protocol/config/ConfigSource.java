package io.elastikey.protocol.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where a setting's value comes from, in order of precedence: command-line {@code --set}
 * flags, then environment variables ({@code ELASTIKEY_} + the name in upper case with dots
 * and dashes as underscores: {@code tls.client-ca} is {@code ELASTIKEY_TLS_CLIENT_CA}), then
 * the config file (Java properties syntax), then the built-in default.
 *
 * <p>Every name read is remembered, so a name in the file or flags that no setting reads is
 * reported as an error: a typo never silently falls back to a default.
 */
public final class ConfigSource {
    private final Map<String, String> flags;
    private final Map<String, String> environment;
    private final Map<String, String> file;
    private final Path fileName;
    private final Set<String> read = new TreeSet<>();

    public ConfigSource(Map<String, String> flags, Map<String, String> environment, Path configFile)
            throws IOException {
        this.flags = Map.copyOf(flags);
        this.environment = Map.copyOf(environment);
        this.fileName = configFile;
        this.file = configFile == null ? Map.of() : readProperties(configFile);
    }

    /** Defaults only: no file, no environment, no flags. */
    public static ConfigSource empty() {
        try {
            return new ConfigSource(Map.of(), Map.of(), null);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The value of {@code name}, or {@code null} when no layer sets it. */
    public String get(String name) {
        read.add(name);
        String value = flags.get(name);
        if (value == null) {
            value = environment.get(environmentName(name));
        }
        if (value == null) {
            value = file.get(name);
        }
        return value == null || value.isBlank() ? null : value.strip();
    }

    /** The environment variable that overrides {@code name}. */
    public static String environmentName(String name) {
        return "ELASTIKEY_" + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /**
     * Fails when the file or the flags name a setting nothing read.
     *
     * @throws ConfigException naming every unknown setting and where it was found
     */
    public void rejectUnknown() {
        Set<String> unknown = new TreeSet<>();
        flags.keySet().stream().filter(k -> !read.contains(k)).map(k -> "--set " + k).forEach(unknown::add);
        file.keySet().stream().filter(k -> !read.contains(k)).map(k -> k + " (in " + fileName + ")")
                .forEach(unknown::add);
        if (!unknown.isEmpty()) {
            throw new ConfigException("unknown setting(s): " + String.join(", ", unknown)
                    + "; known settings are listed by --help and in docs/keyserver.md");
        }
    }

    private static Map<String, String> readProperties(Path path) throws IOException {
        if (!Files.isRegularFile(path)) {
            throw new ConfigException("config file " + path + " does not exist or is not a file");
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        Map<String, String> map = new HashMap<>();
        properties.stringPropertyNames().forEach(k -> map.put(k.strip(), properties.getProperty(k)));
        return map;
    }
}
