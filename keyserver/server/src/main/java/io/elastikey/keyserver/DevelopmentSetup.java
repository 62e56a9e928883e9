package io.elastikey.keyserver;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.protocol.pki.DevPki;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;

/**
 * What the server creates on first start when it runs on the defaults: a development PKI in
 * {@code <data>/pki}, and, only when asked with {@code dev = true} ({@code keyserver --dev}), a policy
 * granting that PKI's client certificate every key. Both are logged loudly; neither is created when the
 * operator configured their own files, and a {@code policy} path the operator gave is never created: a
 * typo there must stop the server, not grant everything.
 */
final class DevelopmentSetup {
    private static final Logger log = LoggerFactory.getLogger(DevelopmentSetup.class);

    private DevelopmentSetup() {
    }

    static void prepare(KeyServerConfig config) throws IOException, GeneralSecurityException {
        if (!config.usesDevelopmentPki()) {
            return;
        }
        boolean existed = Files.exists(config.tlsCertificate());
        DevPki pki = DevPki.loadOrCreate(config.dataDir().resolve("pki"));
        if (!existed) {
            log.warn("created a DEVELOPMENT PKI in {} (set tls.certificate, tls.key and tls.client-ca for production)",
                    pki.directory());
        }
        if (config.dev() && !config.policyGiven() && !Files.exists(config.policyFile())) {
            writeDevelopmentPolicy(config, pki);
        }
    }

    private static void writeDevelopmentPolicy(KeyServerConfig config, DevPki pki) throws IOException,
            CertificateException {
        ClientIdentity client = ClientIdentity.of(pki.client().certificate());
        String policy = """
                # Written by the key server started with --dev (dev = true) and the development PKI.
                # It lets the development client certificate (%s) use every key
                # and fetch the session-ticket keys edges share.
                # Replace it with your own rules: see docs/authorization.md.
                rule development-client
                  client fingerprint %s
                  allow all
                  allow tickets
                """.formatted(pki.directory().resolve(DevPki.CLIENT_CERTIFICATE), client.fingerprint());
        Files.writeString(config.policyFile(), policy, StandardCharsets.UTF_8);
        log.warn("DEVELOPMENT MODE (dev = true): created an ALLOW-ALL policy {} granting the development client "
                + "certificate every key; not for production", config.policyFile());
    }
}
