// SuiteMain -- the servers' commands in one main class, for tests that run them as processes without the launcher.
package io.elastikey.perf.soak;

import java.util.Arrays;

import io.elastikey.edge.cli.EdgeCommand;
import io.elastikey.edge.cli.OriginCommand;
import io.elastikey.keyserver.cli.KeyServerCommand;
import picocli.CommandLine;

/**
 * What {@code ./elastikey keyserver|edge|origin ...} runs, on the test class path: {@link SoakCommandTest} writes a
 * stand-in for the launcher script that {@code exec}s a JVM on this class, so the soak starts real server processes
 * in seconds without a Maven build of the launcher.
 */
public final class SuiteMain {
    private SuiteMain() {
    }

    public static void main(String[] args) {
        Object command = switch (args[0]) {
            case "keyserver" -> new KeyServerCommand();
            case "edge" -> new EdgeCommand();
            case "origin" -> new OriginCommand();
            default -> throw new IllegalArgumentException("not a server command here: " + args[0]);
        };
        int status = new CommandLine(command).execute(Arrays.copyOfRange(args, 1, args.length));
        if (status != 0) {
            System.exit(status);
        }
    }
}
