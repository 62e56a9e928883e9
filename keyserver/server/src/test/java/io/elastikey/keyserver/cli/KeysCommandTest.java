// KeysCommandTest -- the keys commands end to end on a real data directory: every import form, generate, list,
// show, remove, export-public, and the errors an operator meets.
package io.elastikey.keyserver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.keys.JdkPrivateKeyParser;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Pem;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class KeysCommandTest {
    @TempDir
    Path tmp;
    Path data;
    CertificateAuthority ca;

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void setUp() throws Exception {
        data = tmp.resolve("data");
        ca = DevPki.loadOrCreate(tmp.resolve("pki")).ca();
    }

    Result keys(String... args) {
        return keys(Progress.NONE, args);
    }

    Result keys(Progress.Factory progress, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = KeysCommand.commandLine(progress);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of(args));
        if (all.size() > 0 && !all.contains("--help")) {
            all.add(1, "--data");
            all.add(2, data.toString());
        }
        return new Result(cl.execute(all.toArray(String[]::new)), out.toString(), err.toString());
    }

    IssuedCertificate issue(KeyType type, String name) throws Exception {
        return ca.issueServer(name, List.of(name), type, Validity.days(30));
    }

    long count() {
        try (KeyRepository repository = KeyRepository.open(KeyServerConfig.defaults(data), new JdkPrivateKeyParser())) {
            return repository.count();
        }
    }

    @Test
    void importsSeparatePemFilesPairedByPublicKeyNotByName() throws Exception {
        IssuedCertificate rsa = issue(KeyType.RSA_2048, "rsa.example.test");
        IssuedCertificate ec = issue(KeyType.EC_P384, "ec.example.test");
        PemFiles.writePrivateKey(tmp.resolve("first.key"), rsa.privateKey());
        PemFiles.writeCertificates(tmp.resolve("second.crt"), ec.chain());
        PemFiles.writePrivateKey(tmp.resolve("third.key"), ec.privateKey());
        PemFiles.writeCertificates(tmp.resolve("fourth.crt"), List.of(rsa.certificate()));

        Result r = keys("import", "--tag", "imported", tmp.resolve("first.key").toString(),
                tmp.resolve("second.crt").toString(), tmp.resolve("third.key").toString(),
                tmp.resolve("fourth.crt").toString());

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("imported 2 keys (2 certificates) from 4 files");
        String keyId = KeyIds.keyId(ec.certificate().getPublicKey());
        Result show = keys("show", keyId);
        assertThat(show.out()).contains("ec384", "ec.example.test", "imported", "issued by");
    }

    @Test
    void importsACombinedPemAndDerFiles() throws Exception {
        IssuedCertificate combined = issue(KeyType.ED25519, "combined.example.test");
        Files.writeString(tmp.resolve("combined.pem"), Pem.writePrivateKey(combined.privateKey())
                + Pem.writeCertificates(combined.chain()));
        IssuedCertificate der = issue(KeyType.EC_P256, "der.example.test");
        Files.write(tmp.resolve("key.der"), der.privateKey().getEncoded());
        Files.write(tmp.resolve("cert.der"), der.certificate().getEncoded());

        Result r = keys("import", tmp.resolve("combined.pem").toString(), tmp.resolve("key.der").toString(),
                tmp.resolve("cert.der").toString());

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(count()).isEqualTo(2);
        assertThat(keys("show", KeyIds.hex(KeyIds.certificateSha1(der.certificate()))).out())
                .contains("der.example.test");
    }

    @Test
    void importsADirectorySkippingCertificatesWithoutKeysAndOtherFiles() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("dir/nested"));
        for (int i = 0; i < 3; i++) {
            IssuedCertificate issued = issue(KeyType.EC_P256, "dir-" + i + ".example.test");
            PemFiles.writePrivateKey(dir.resolve("k" + i + ".pem"), issued.privateKey());
            PemFiles.writeCertificates(dir.getParent().resolve("c" + i + ".pem"), issued.chain());
        }
        PemFiles.writeCertificates(dir.resolve("ca.pem"), List.of(ca.certificate()));
        Files.writeString(dir.resolve("README.txt"), "these are test keys\n");

        Result r = keys("import", tmp.resolve("dir").toString());

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("imported 3 keys").contains("skipped 1 certificate file")
                .contains("skipped 1 file(s) holding no key or certificate");
        assertThat(count()).isEqualTo(3);
    }

    @Test
    void importsPkcs12WithItsPasswordAndRefusesAWrongOne() throws Exception {
        IssuedCertificate issued = issue(KeyType.RSA_2048, "p12.example.test");
        KeyStore p12 = KeyStore.getInstance("PKCS12");
        p12.load(null, null);
        p12.setKeyEntry("server", issued.privateKey(), "s3cret".toCharArray(), issued.chainArray());
        Path file = tmp.resolve("server.p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            p12.store(out, "s3cret".toCharArray());
        }

        Result wrong = keys("import", "--password", "wrong", file.toString());
        assertThat(wrong.code()).isEqualTo(1);
        assertThat(wrong.err()).contains(file.toString()).contains("wrong PKCS#12 password");
        Result none = keys("import", file.toString());
        assertThat(none.code()).isEqualTo(1);
        assertThat(none.err()).contains("give its password with --password");

        Result r = keys("import", "--password", "s3cret", file.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(keys("show", KeyIds.keyId(issued.certificate().getPublicKey())).out())
                .contains("modulus SHA-256", "p12.example.test");
    }

    @Test
    void aKeyWithoutItsCertificateImportsNothing() throws Exception {
        IssuedCertificate with = issue(KeyType.EC_P256, "with.example.test");
        IssuedCertificate without = issue(KeyType.EC_P256, "without.example.test");
        PemFiles.writePrivateKey(tmp.resolve("with.key"), with.privateKey());
        PemFiles.writeCertificates(tmp.resolve("with.crt"), with.chain());
        PemFiles.writePrivateKey(tmp.resolve("lonely.key"), without.privateKey());

        Result r = keys("import", tmp.resolve("with.key").toString(), tmp.resolve("with.crt").toString(),
                tmp.resolve("lonely.key").toString());

        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("elastikey keys import: no certificate among the inputs is for the key in")
                .contains("lonely.key").contains(KeyIds.keyId(without.certificate().getPublicKey()))
                .contains("nothing was imported");
        assertThat(count()).isZero();
    }

    @Test
    void missingAndUnreadableInputsAreClearErrors() throws Exception {
        Result missing = keys("import", tmp.resolve("nope.pem").toString());
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("no such file or directory").contains("nope.pem");

        Files.writeString(tmp.resolve("notes.txt"), "hello");
        Result notKey = keys("import", tmp.resolve("notes.txt").toString());
        assertThat(notKey.code()).isEqualTo(1);
        assertThat(notKey.err()).contains("notes.txt holds no private key or certificate");

        Files.writeString(tmp.resolve("encrypted.pem"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBvTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQI\n"
                        + "-----END ENCRYPTED PRIVATE KEY-----\n");
        Result encrypted = keys("import", tmp.resolve("encrypted.pem").toString());
        assertThat(encrypted.code()).isEqualTo(1);
        assertThat(encrypted.err()).contains("encrypted.pem").doesNotContain("MIIBvTBX");
    }

    @Test
    void generateListShowRemoveAndExport() throws Exception {
        Result generated = keys("generate", "--count", "25", "--type", "ec256", "--pki", tmp.resolve("pki").toString(),
                "--tag", "gen", "--batch", "7", "--threads", "2");
        assertThat(generated.code()).as(generated.err()).isZero();
        assertThat(generated.out()).contains("generated 25 ec256 certificates and keys").contains("holds 25 keys");

        Result list = keys("list");
        assertThat(list.out().lines().filter(l -> l.contains("key-")).count()).isEqualTo(25);
        assertThat(list.out()).contains("25 of 25 keys").contains("[gen]");
        assertThat(keys("list", "--limit", "4", "--no-header").out().lines().count()).isEqualTo(4);

        Path exported = tmp.resolve("public.pem");
        Result export = keys("export-public", "--out", exported.toString());
        assertThat(export.out()).contains("exported 25 certificates");
        List<X509Certificate> certificates = PemFiles.readCertificates(exported);
        assertThat(certificates).hasSize(25).allSatisfy(c -> assertThat(ca.hasIssued(c)).isTrue());
        assertThat(Files.readString(exported)).doesNotContain("PRIVATE");

        X509Certificate one = certificates.get(0);
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(one)).toUpperCase(Locale.ROOT);
        String keyId = KeyIds.keyId(one.getPublicKey());
        assertThat(keys("show", fingerprint).out()).contains("key ID             " + keyId);
        assertThat(keys("export-public", "--chain", keyId).out()).containsOnlyOnce("BEGIN CERTIFICATE-----\n"
                + Pem.writeCertificate(one).lines().skip(1).findFirst().orElseThrow());
        assertThat(Pem.readCertificates(keys("export-public", "--chain", keyId).out())).hasSize(2);

        RecordingProgress recording = new RecordingProgress();
        assertThat(keys(recording.factory(), "export-public", "--out", exported.toString()).code()).isZero();
        assertThat(recording.events()).hasSize(27).startsWith("start exporting 25 keys", "update 1")
                .endsWith("finish 25");

        Path edgeCertificates = tmp.resolve("edge-certs");
        assertThat(keys("export-public", "--chain", "--out-dir", edgeCertificates.toString()).out())
                .contains("exported 25 certificates to " + edgeCertificates);
        try (var files = Files.list(edgeCertificates)) {
            assertThat(files.map(f -> f.getFileName().toString()).toList()).hasSize(25)
                    .allSatisfy(name -> assertThat(name).matches("[0-9a-f]{64}\\.pem"));
        }
        List<X509Certificate> chain = PemFiles.readCertificates(edgeCertificates.resolve(keyId + ".pem"));
        assertThat(chain).containsExactly(one, ca.certificate());
        assertThat(keys("export-public", "--out-dir", edgeCertificates.toString(), keyId).err())
                .contains("--out-dir exports every key");

        Result removed = keys("remove", fingerprint);
        assertThat(removed.code()).isZero();
        assertThat(removed.out()).contains("removed " + keyId);
        Result gone = keys("show", keyId);
        assertThat(gone.code()).isEqualTo(1);
        assertThat(gone.err()).contains("no key has the identifier " + keyId);
        assertThat(keys("remove", keyId).code()).isEqualTo(1);
        assertThat(keys("count").out().strip()).isEqualTo("24");
        assertThat(keys("count", "--recount").out().strip()).isEqualTo("24");
    }

    @Test
    void anRsaPoolCertifiesFewKeysManyTimes() {
        Result r = keys("generate", "--count", "6", "--type", "rsa2048", "--rsa-pool", "2", "--name",
                "pool-%d.example.test");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("generated 6 rsa2048 certificates for 2 pooled keys").contains("holds 2 keys");
        assertThat(keys("list").out()).contains("2 of 2 keys");
        assertThat(keys("export-public").out()).containsPattern("(?s)(BEGIN CERTIFICATE.*){6}");
        assertThat(data.resolve("pki/ca.pem")).exists(); // the default PKI is the server's, under --data

        Result ec = keys("generate", "--count", "2", "--type", "ec256", "--rsa-pool", "2");
        assertThat(ec.code()).isEqualTo(1);
        assertThat(ec.err()).contains("--rsa-pool applies to RSA key types only");
        Result badName = keys("generate", "--count", "2", "--name", "no-number.example.test%s%s");
        assertThat(badName.code()).isEqualTo(1);
        assertThat(badName.err()).contains("must hold one %d");
    }

    @Test
    void aStoreHeldByAnotherProcessIsNamed() {
        try (KeyRepository held = KeyRepository.open(KeyServerConfig.defaults(data), new JdkPrivateKeyParser())) {
            Result r = keys("list");
            assertThat(r.code()).isEqualTo(1);
            assertThat(r.err()).startsWith("elastikey keys list: ").contains("already open")
                    .contains("no key server answers on its control socket");
        }
    }

    @Test
    void everyCommandHasHelpAndBadUsageIsStatusTwo() {
        for (String command : List.of("import", "generate", "list", "show", "remove", "export-public", "count")) {
            Result help = keys(command, "--help");
            assertThat(help.code()).as(command).isZero();
            assertThat(help.out()).as(command).contains("Usage:").contains("--data");
        }
        assertThat(keys("generate", "--help").out()).contains("--rsa-pool").contains("key-%d.example.test");
        assertThat(keys("generate").code()).isEqualTo(2);
    }
}
