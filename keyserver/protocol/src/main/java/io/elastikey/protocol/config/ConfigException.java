package io.elastikey.protocol.config;

/** A setting that is missing, malformed or out of range; the message names the setting and the rule. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
