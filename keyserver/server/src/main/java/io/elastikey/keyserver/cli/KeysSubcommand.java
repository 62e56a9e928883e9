// KeysSubcommand -- what every `keys` subcommand shares: the server's config options, the repository, error exits.
package io.elastikey.keyserver.cli;

import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.config.ConfigOptions;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.control.ControlClient;
import io.elastikey.keyserver.keys.JdkPrivateKeyParser;
import io.elastikey.keyserver.keys.KekException;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.keys.SealedRecordException;
import io.elastikey.store.StoreException;
import io.elastikey.store.StoreLockedException;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.security.GeneralSecurityException;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The base of {@code keys import|generate|list|show|remove|export-public|count}. Each takes the key server's own
 * {@link ConfigOptions} ({@code --config}, {@code --data}, {@code --set}), so the commands and the server always
 * open the same store with the same KEK. When a key server answers on the configured control socket, the command
 * runs inside it instead ({@link ControlClient}, {@link ForwardedArguments}), and inside the server
 * {@link #openRepository} lends the server's own repository. Expected failures (a missing file, a wrong password, a
 * KEK problem, a store held by another process) end with one line on standard error and exit status 1; picocli
 * answers usage errors with status 2.
 */
abstract class KeysSubcommand implements Callable<Integer> {
    @Mixin
    ConfigOptions configOptions = new ConfigOptions();

    @Spec
    CommandSpec spec;

    @Option(names = "--store", paramLabel = "DIR|URI",
            description = "Where the keys are kept (the 'store' setting): a directory (ElasticStore, default "
                    + "<data>/keys) or a Redis URI, e.g. redis://127.0.0.1:6379?prefix=ek: (docs/redis.md).")
    void store(String location) {
        configOptions.set("store", location);
    }

    @ParentCommand
    KeysCommand parent;

    /** The command's work; returns the exit status. */
    abstract int run() throws Exception;

    @Override
    public final Integer call() throws Exception {
        try {
            OptionalInt inServer = forwardToServer();
            return inServer.isPresent() ? inServer.getAsInt() : run();
        } catch (StoreLockedException e) {
            return fail(e.getMessage() + "; no key server answers on its control socket (control.socket), so the "
                    + "command needs the key store to itself: wait for the other keys command, or stop the process "
                    + "that holds the store");
        } catch (CliException | KekException | SealedRecordException | ConfigException | StoreException
                 | IllegalArgumentException | IllegalStateException e) {
            return fail(e.getMessage());
        } catch (NoSuchFileException e) {
            return fail("no such file or directory: " + e.getFile()
                    + (e.getReason() == null ? "" : " (" + e.getReason() + ")"));
        } catch (AccessDeniedException e) {
            return fail("permission denied: " + e.getFile());
        } catch (UncheckedIOException e) {
            return fail(e.getCause().getMessage());
        } catch (IOException | GeneralSecurityException e) {
            return fail(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
    }

    /**
     * Runs the command inside the key server that answers on the control socket, if one does; empty when none does
     * (or when this already runs inside the server).
     */
    private OptionalInt forwardToServer() throws IOException {
        if (inServer()) {
            return OptionalInt.empty();
        }
        KeyServerConfig config = config();
        return ControlClient.forward(config.controlSocket(), config.store(), ForwardedArguments.of(spec), out(),
                spec.commandLine().getErr(), ControlProgress.drawing(progress()));
    }

    /** Whether the command runs inside a key server, on its repository. */
    boolean inServer() {
        return parent != null && parent.served() != null;
    }

    /** The settings: the running server's own inside it, else those of --config, --data and --set. */
    KeyServerConfig config() {
        return inServer() ? parent.served().config() : KeyServerConfig.from(configOptions.source());
    }

    /** The repository on the configured store (the server's own, inside it); the caller closes the lease. */
    RepositoryLease openRepository() {
        return inServer() ? RepositoryLease.borrowed(parent.served().keys(), parent.served().changes())
                : RepositoryLease.opened(KeyRepository.open(config(), new JdkPrivateKeyParser()));
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    Progress.Factory progress() {
        return parent == null ? Progress.NONE : parent.progress();
    }

    private int fail(String message) {
        spec.commandLine().getErr().println("elastikey " + spec.qualifiedName().replaceFirst("^elastikey ", "")
                + ": " + message);
        spec.commandLine().getErr().flush();
        return 1;
    }
}
