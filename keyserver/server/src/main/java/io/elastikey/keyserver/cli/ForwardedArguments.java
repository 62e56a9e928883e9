// ForwardedArguments -- a parsed keys command as the command line a running key server will run for it.
package io.elastikey.keyserver.cli;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * Rebuilds the command line of a parsed {@code keys} subcommand for {@link io.elastikey.keyserver.control.ControlClient}:
 * file and directory arguments made absolute (the server has its own working directory), an interactive password
 * as the value it was answered with (the socket is owner-only), and the options that choose the store and its
 * settings ({@code --config}, {@code --data}, {@code --set}, {@code --store}) left out: the server runs the
 * command with its own, after checking that the store is the one the caller meant.
 */
final class ForwardedArguments {
    private static final Set<String> STORE_OPTIONS = Set.of("--config", "--data", "--set", "--store");

    private ForwardedArguments() {
    }

    static List<String> of(CommandSpec command) {
        ParseResult parsed = command.commandLine().getParseResult();
        List<String> arguments = new ArrayList<>();
        arguments.add(command.name());
        for (OptionSpec option : new LinkedHashSet<>(parsed.matchedOptions())) {
            String name = option.longestName();
            if (STORE_OPTIONS.contains(name)) {
                continue;
            }
            if (option.interactive()) {
                char[] answer = option.getValue();
                arguments.add(answer == null ? name : name + "=" + new String(answer));
            } else if (option.arity().max() == 0) {
                arguments.add(name);
            } else {
                for (String value : option.stringValues()) {
                    arguments.add(name + "=" + absolute(option, value));
                }
            }
        }
        Set<PositionalParamSpec> positionals = new LinkedHashSet<>(parsed.matchedPositionals());
        if (!positionals.isEmpty()) {
            arguments.add("--"); // a file named "-x" stays a file
            for (PositionalParamSpec positional : positionals) {
                for (String value : positional.stringValues()) {
                    arguments.add(absolute(positional, value));
                }
            }
        }
        return arguments;
    }

    private static String absolute(ArgSpec argument, String value) {
        Class<?> type = argument.type();
        if (argument.auxiliaryTypes().length > 0 && (List.class.isAssignableFrom(type) || type.isArray())) {
            type = argument.auxiliaryTypes()[0];
        }
        return type == Path.class || type == File.class ? Path.of(value).toAbsolutePath().normalize().toString()
                : value;
    }
}
