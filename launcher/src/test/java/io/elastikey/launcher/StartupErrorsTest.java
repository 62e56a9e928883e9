// StartupErrorsTest -- a server that cannot start says which setting, which path or port, and why, on one line.
package io.elastikey.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.elastikey.protocol.pki.DevPki;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The real commands ({@code keyserver}, {@code edge}, {@code store serve}) started in this JVM on files and ports that
 * cannot be used. Each must end with status 1 and exactly one line on standard error naming the setting (or
 * option), the path or address, and the operating system's reason; never the bare path of an exception, never a
 * stack trace.
 */
class StartupErrorsTest {
    @TempDir
    Path tmp;

    private record Result(int code, String err) {
    }

    private static Result run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        return new Result(cl.execute(args), err.toString());
    }

    /** The key server's arguments: its own data directory, any free ports, no warm-up. */
    private String[] keyserver(String... more) {
        List<String> args = new ArrayList<>(List.of("keyserver", "--dev", "--data", tmp.resolve("ks").toString(),
                "--set", "listen=127.0.0.1:0", "--set", "admin.listen=127.0.0.1:0", "--set", "warmup.exercise=0s", "--set", "warmup.requests=0s",
                "--set", "keys.expected=1024", "--set", "store.memory=8m"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private static void assertOneLine(Result result, String expected) {
        assertThat(result.code()).as(result.err()).isEqualTo(1);
        assertThat(result.err()).isEqualTo(expected + System.lineSeparator());
    }

    @Test
    void aMissingCertificateKeyCaOrCrlFileNamesItsSetting() throws Exception {
        DevPki.loadOrCreate(tmp.resolve("ks/pki")); // the files the other settings name by default
        for (String setting : List.of("tls.certificate", "tls.key", "tls.client-ca", "tls.crl")) {
            Path missing = tmp.resolve("missing-" + setting + ".pem");
            assertOneLine(run(keyserver("--set", setting + "=" + missing)), "elastikey keyserver: " + setting
                    + ": cannot read " + missing + ": no such file or directory");
        }
        assertOneLine(run(keyserver("--set", "tls.key=" + tmp)),
                "elastikey keyserver: tls.key: cannot read " + tmp + ": is a directory, not a file");
    }

    @Test
    void aPortInUseNamesThePortAndItsSetting() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            for (String setting : List.of("listen", "admin.listen")) {
                assertOneLine(run(keyserver("--set", setting + "=" + address)), "elastikey keyserver: " + setting
                        + ": cannot listen on " + address + ": address already in use (another process listens "
                        + "on that port)");
            }
        }
    }

    @Test
    void anUnusableDataDirectoryIsNamedWithTheReason() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "not a directory");
        assertOneLine(run("keyserver", "--dev", "--data", file.toString()), "elastikey keyserver: data: cannot use "
                + file + " as the data directory: not a directory");
        Path below = file.resolve("data");
        assertOneLine(run("keyserver", "--dev", "--data", below.toString()), "elastikey keyserver: data: cannot use "
                + below + " as the data directory: not a directory");
    }

    @Test
    void aDataDirectoryWithoutWritePermissionSaysPermissionDenied() throws Exception {
        assumeFalse("root".equals(System.getProperty("user.name")), "root writes everywhere: the mode is ignored");
        Path readOnly = Files.createDirectory(tmp.resolve("read-only"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-xr-xr-x")));
        assertOneLine(run("keyserver", "--dev", "--data", readOnly.toString()), "elastikey keyserver: data: cannot "
                + "use " + readOnly + " as the data directory: cannot create files in it: permission denied");
    }

    @Test
    void theEdgeNamesItsSettingsToo() throws Exception {
        Path data = tmp.resolve("edge-data");
        assertOneLine(run("edge", "--data", data.toString()), "elastikey edge: keyservers.ca: cannot read "
                + data.resolve("pki/ca.pem") + ": no such file or directory");

        assertThat(run("keys", "generate", "--count", "1", "--data", data.toString()).code()).isZero();
        assertThat(run("keys", "export-public", "--chain", "--out-dir", data.resolve("edge/certs").toString(),
                "--data", data.toString()).code()).isZero();
        Path file = Files.writeString(tmp.resolve("not-a-cache"), "");
        assertOneLine(run("edge", "--data", data.toString(), "--set", "cache.dir=" + file),
                "elastikey edge: cache.dir: cannot use " + file + " as the content cache's directory: not a directory");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            assertOneLine(run("edge", "--data", data.toString(), "--set", "listen=" + address, "--set",
                    "admin.listen=127.0.0.1:0", "--set", "cache.memory=8m"), "elastikey edge: listen: cannot listen on "
                    + address + ": address already in use (another process listens on that port)");
        }
    }

    @Test
    void storeServeNamesItsOptions() throws Exception {
        Path file = Files.writeString(tmp.resolve("not-a-store"), "");
        assertOneLine(run("store", "serve", "--data", file.toString()),
                "elastikey serve: --data: cannot use " + file + " as the store's data directory: not a directory");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            assertOneLine(run("store", "serve", "--data", tmp.resolve("store").toString(), "--memory", "8m",
                    "--resp", address), "elastikey serve: --resp: cannot listen on " + address
                    + ": address already in use (another process listens on that port)");
        }
    }
}
