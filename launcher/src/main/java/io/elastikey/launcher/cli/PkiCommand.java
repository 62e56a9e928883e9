// PkiCommand -- `elastikey pki init`: a development CA with server and client certificates.
package io.elastikey.launcher.cli;

import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyType;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The development PKI that tests, the demo and local deployments share. */
@Command(name = "pki", mixinStandardHelpOptions = true,
        description = "Development PKI (not for production certificates).",
        subcommands = PkiCommand.Init.class)
public final class PkiCommand implements Runnable {

    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    /** Writes (or loads, if present) ca.pem/key, server.pem/key and client.pem/key. */
    @Command(name = "init", mixinStandardHelpOptions = true,
            description = "Create a dev CA, a server certificate and a client certificate in --pki DIR "
                    + "(existing files are kept and checked).")
    static final class Init implements Callable<Integer> {

        @Option(names = "--pki", defaultValue = "${sys:elastikey.home:-${sys:user.dir}}/pki",
                description = "Directory for the PKI files (default: ${DEFAULT-VALUE}).")
        Path dir;

        @Option(names = "--key-type", defaultValue = "ec256",
                description = "Key type of new certificates: rsa2048, rsa3072, rsa4096, ec256, ec384, ed25519 "
                        + "(default: ${DEFAULT-VALUE}).")
        String keyType;

        @Option(names = "--server-name", split = ",",
                description = "DNS names and IPs of the server certificate (default: localhost,127.0.0.1,::1).")
        List<String> serverNames;

        @Override
        public Integer call() throws Exception {
            List<String> names = serverNames == null || serverNames.isEmpty() ? DevPki.DEFAULT_SERVER_NAMES : serverNames;
            DevPki pki = DevPki.loadOrCreate(dir, KeyType.parse(keyType), names);
            System.out.println("dev PKI in " + pki.directory().toAbsolutePath());
            System.out.println("  CA      " + pki.ca().certificate().getSubjectX500Principal());
            System.out.println("  server  " + pki.server().certificate().getSubjectX500Principal());
            System.out.println("  client  " + pki.client().certificate().getSubjectX500Principal());
            return 0;
        }
    }
}
