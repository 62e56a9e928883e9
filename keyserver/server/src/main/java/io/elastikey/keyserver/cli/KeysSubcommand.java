// KeysSubcommand -- what every `keys` subcommand shares: the server's config options, the repository, error exits.
package io.elastikey.keyserver.cli;

import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.config.ConfigOptions;
import io.elastikey.keyserver.config.KeyServerConfig;
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
import java.util.concurrent.Callable;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The base of {@code keys import|generate|list|show|remove|export-public|count}. Each takes the key server's own
 * {@link ConfigOptions} ({@code --config}, {@code --data}, {@code --set}), so the commands and the server always
 * open the same store with the same KEK. Expected failures (a missing file, a wrong password, a KEK problem, a
 * store held by a running server) end with one line on standard error and exit status 1; picocli answers usage
 * errors with status 2.
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
            return run();
        } catch (StoreLockedException e) {
            return fail(e.getMessage() + "; the keys commands need the key store to themselves: stop the key "
                    + "server (or the other keys command) first");
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

    KeyServerConfig config() {
        return KeyServerConfig.from(configOptions.source());
    }

    /** The repository on the configured store; the caller closes it. */
    KeyRepository openRepository() {
        return KeyRepository.open(config(), new JdkPrivateKeyParser());
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
