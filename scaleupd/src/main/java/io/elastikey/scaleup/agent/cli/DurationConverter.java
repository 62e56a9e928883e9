// DurationConverter -- durations on the command line, read as the configuration reads them.
package io.elastikey.scaleup.agent.cli;

import io.elastikey.protocol.config.Values;
import picocli.CommandLine.ITypeConverter;

import java.time.Duration;

/** The duration syntax of every Elastikey setting ({@code 20ms}, {@code 5s}, {@code 2m}, {@code 1h}, a bare {@code 0}). */
final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String text) {
        return Values.duration("duration", text);
    }
}
