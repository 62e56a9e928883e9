// ElastikeyHome -- where built-in default paths live: the Elastikey directory the launcher names, else the working one.
package io.elastikey.protocol.config;

import java.nio.file.Path;

/**
 * The {@code ./elastikey} launcher runs Java in the caller's working directory, so that a path given on the command
 * line ({@code --data ./d}, {@code keys import ./in}) is the caller's. Built-in defaults such as
 * {@code elastikey-data} stay where they always were, in the Elastikey directory (the repository), so a key server
 * and an edge started from two terminals in different directories still share one data directory. The launcher
 * passes that directory as the system property {@value #PROPERTY}; without it (tests, an embedding application)
 * defaults resolve against the working directory.
 */
public final class ElastikeyHome {
    /** The system property the launcher sets to the Elastikey directory. */
    public static final String PROPERTY = "elastikey.home";

    private ElastikeyHome() {
    }

    /** {@code relative} under the Elastikey directory (or the working directory), absolute and normalized. */
    public static Path resolve(String relative) {
        String home = System.getProperty(PROPERTY);
        Path base = home == null || home.isBlank() ? Path.of("") : Path.of(home);
        return base.resolve(relative).toAbsolutePath().normalize();
    }
}
