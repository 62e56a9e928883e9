// SecurityOptions -- `store serve`'s AUTH users, TLS files and ELASTIC.RESIZE bounds, as a picocli mixin.
package io.elastikey.resp.cli;

import io.elastikey.resp.ResizeBounds;
import io.elastikey.resp.RespOptions;
import io.elastikey.resp.RespTls;
import io.elastikey.resp.RespUsers;
import io.elastikey.resp.Sizes;
import io.elastikey.store.governor.GovernorConfig;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the settings into {@link RespOptions}, failing on the first bad one with a message naming
 * it (never a password). A password may come from the environment ({@value #PASSWORD_ENV}) or a
 * users file, which, unlike the command line, other users cannot read in {@code ps}.
 */
final class SecurityOptions {
    static final String PASSWORD_ENV = "ELASTIKEY_RESP_PASSWORD";
    private static final long MIB = 1L << 20;
    private static final long GOVERNOR_MIN = 64 * MIB;
    private static final long GOVERNOR_MAX = 4096 * MIB;

    @Option(names = "--requirepass", paramLabel = "PASSWORD",
            description = "Password of the user 'default' (an admin), as Redis's requirepass; AUTH is then required. "
                    + "Also read from $" + PASSWORD_ENV + ", which ps does not show.")
    String requirePass;

    @Option(names = "--user", paramLabel = "NAME:PASSWORD:ROLE",
            description = "A user (repeatable); ROLE is admin, readwrite or readonly. AUTH is then required.")
    List<String> users = new ArrayList<>();

    @Option(names = "--users-file", paramLabel = "FILE",
            description = "Users, one NAME:PASSWORD:ROLE per line (PASSWORD may be #<sha256 hex>); keep it mode 600.")
    Path usersFile;

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "Serve TLS with this certificate chain (PEM).")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The TLS certificate's private key (PEM).")
    Path tlsKey;

    @Option(names = "--tls-client-ca", paramLabel = "FILE",
            description = "Require client certificates issued by these CAs (PEM).")
    Path tlsClientCa;

    @Option(names = "--resize-min", paramLabel = "SIZE",
            description = "Smallest size ELASTIC.RESIZE may set, whole MiB; 0 lets it empty the memory tier "
                    + "(default: 64m, or --memory if smaller).")
    String resizeMin;

    @Option(names = "--resize-max", paramLabel = "SIZE",
            description = "Largest size ELASTIC.RESIZE may set, whole MiB (default: 4g, or --memory if larger); "
                    + "the machine's available memory bounds it too.")
    String resizeMax;

    /**
     * The options these settings make, for the caller to finish.
     *
     * @param memoryBytes the store's starting budget ({@code --memory}), which the default bounds include
     */
    RespOptions.Builder options(long memoryBytes) throws IOException {
        return RespOptions.builder().users(users()).tls(tls()).resizeBounds(resizeBounds(memoryBytes));
    }

    private RespUsers users() throws IOException {
        RespUsers.Builder b = RespUsers.builder();
        String password = requirePass != null ? requirePass : System.getenv(PASSWORD_ENV);
        if (password != null) {
            b.requirePass(password);
        }
        users.forEach(b::user);
        if (usersFile != null) {
            b.file(usersFile);
        }
        return b.build();
    }

    private io.netty.handler.ssl.SslContext tls() throws IOException {
        if (tlsCert == null && tlsKey == null && tlsClientCa == null) {
            return null;
        }
        if (tlsCert == null || tlsKey == null) {
            throw new IllegalArgumentException("TLS needs both --tls-cert and --tls-key");
        }
        return RespTls.serverContext(tlsCert, tlsKey, tlsClientCa);
    }

    private ResizeBounds resizeBounds(long memoryBytes) {
        long min = resizeMin != null ? wholeMib("--resize-min", resizeMin)
                : Math.max(MIB, Math.min(GOVERNOR_MIN, memoryBytes / MIB * MIB));
        long max = resizeMax != null ? wholeMib("--resize-max", resizeMax)
                : Math.max(GOVERNOR_MAX, (memoryBytes + MIB - 1) / MIB * MIB);
        if (max < min) {
            throw new IllegalArgumentException("--resize-max (" + Sizes.format(max) + ") is below --resize-min ("
                    + Sizes.format(min) + ")");
        }
        if (max > (1L << 50)) {
            throw new IllegalArgumentException("--resize-max must be at most 1 PiB");
        }
        return ResizeBounds.of(GovernorConfig.builder().minBudgetBytes(min).maxBudgetBytes(max).build());
    }

    private static long wholeMib(String setting, String text) {
        long v = Sizes.parse(setting, text);
        if (v % MIB != 0) {
            throw new IllegalArgumentException(setting + " must be whole MiB (like 64m), was '" + text + "'");
        }
        return v;
    }
}
