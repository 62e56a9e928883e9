// KeyListFileTest -- PEM certificates become a key list that reads back as the same keys, filtered and limited.
package io.elastikey.perf.ski;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SkiMethod;
import picocli.CommandLine;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyListFileTest {
    private static final List<KeyType> TYPES = List.of(KeyType.EC_P256, KeyType.RSA_2048, KeyType.EC_P256,
            KeyType.ED25519, KeyType.EC_P384, KeyType.EC_P256);

    @TempDir
    static Path directory;
    private static Path pem;
    private static List<IssuedCertificate> issued = new ArrayList<>();
    private final ByteArrayOutputStream progress = new ByteArrayOutputStream();

    @BeforeAll
    static void writeCertificates() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Key list CA", KeyType.EC_P256, Validity.days(1));
        for (int i = 0; i < TYPES.size(); i++) {
            issued.add(ca.issueServer("k" + i + ".example", List.of("k" + i + ".example"), TYPES.get(i),
                    Validity.days(1)));
        }
        pem = directory.resolve("certs.pem");
        PemFiles.writeCertificates(pem, issued.stream().map(IssuedCertificate::certificate).toList());
    }

    @Test
    void aKeyListReadsBackAsTheSameKeysInTheSameOrderAsThePemFile() throws Exception {
        Path list = directory.resolve("all.keys");

        Map<Path, Long> written = convert(Map.of(list, Set.of()));

        assertThat(written).containsEntry(list, (long) TYPES.size());
        assertThat(Files.readAllLines(list).get(0)).isEqualTo(KeyListFile.HEADER);
        SkiKeySet fromList = SkiKeySet.load(list);
        SkiKeySet fromPem = SkiKeySet.load(pem);
        assertThat(fromList.size()).isEqualTo(TYPES.size());
        for (int i = 0; i < TYPES.size(); i++) {
            SkiKeySet.Key expected = SkiKeySet.keyOf(issued.get(i).certificate());
            assertThat(fromList.key(i)).isEqualTo(expected).isEqualTo(fromPem.key(i));
            assertThat(fromList.type(i)).isEqualTo(TYPES.get(i));
            assertThat(fromList.key(i).spkiDer()).isEqualTo(expected.spkiDer());
            assertThat(fromList.key(i).publicKey()).isEqualTo(issued.get(i).certificate().getPublicKey());
        }
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("6 certificates read");
    }

    @Test
    void onePassSplitsTheKeysByTypeIntoSeveralLists() throws Exception {
        Path ec = directory.resolve("ec256.keys");
        Path rsa = directory.resolve("rsa2048.keys");
        Map<Path, Set<KeyType>> outputs = new LinkedHashMap<>();
        outputs.put(ec, EnumSet.of(KeyType.EC_P256));
        outputs.put(rsa, EnumSet.of(KeyType.RSA_2048));

        Map<Path, Long> written = convert(outputs);

        assertThat(written).containsEntry(ec, 3L).containsEntry(rsa, 1L);
        assertThat(SkiKeySet.load(ec).types()).containsExactly(KeyType.EC_P256);
        assertThat(SkiKeySet.load(rsa).key(0)).isEqualTo(SkiKeySet.keyOf(issued.get(1).certificate()));
        assertThat(directory.resolve(".ec256.keys.partial")).doesNotExist();
    }

    @Test
    void theKeyLimitTakesTheFirstKeysThatServeTheMethodAndStopsThere() throws Exception {
        Path list = directory.resolve("limited.keys");
        convert(Map.of(list, Set.of()));

        SkiKeySet two = SkiKeySet.load(list, SkiMethod.SIGN, null, 2);
        SkiKeySet rsa = SkiKeySet.load(list, SkiMethod.RSA, null, 5);

        assertThat(two.keys()).containsExactly(SkiKeySet.keyOf(issued.get(0).certificate()),
                SkiKeySet.keyOf(issued.get(1).certificate()));
        assertThat(rsa.size()).isEqualTo(1);
        assertThat(rsa.type(0)).isEqualTo(KeyType.RSA_2048);
        assertThat(SkiKeySet.load(pem, SkiMethod.SIGN, null, 3).first(2).keys()).isEqualTo(two.keys());
    }

    @Test
    void aMalformedLineIsAnErrorNamingTheLine() throws IOException {
        Path bad = directory.resolve("bad.keys");
        Files.writeString(bad, KeyListFile.HEADER + "\n\n" + "00".repeat(20) + " ec999 AAAA\n");

        assertThatThrownBy(() -> SkiKeySet.load(bad)).isInstanceOf(IOException.class)
                .hasMessageContaining("line 3");
    }

    @Test
    void theCommandWritesTheTypesAskedFor() throws Exception {
        Path out = directory.resolve("cli.keys");

        int status = new CommandLine(new KeyListCommand()).execute("--from", pem.toString(), "--out", out.toString(),
                "--type", "ec256,ed25519");

        assertThat(status).isZero();
        assertThat(SkiKeySet.load(out).types()).containsExactly(KeyType.EC_P256, KeyType.ED25519);
        assertThat(SkiKeySet.load(out).size()).isEqualTo(4);
    }

    private Map<Path, Long> convert(Map<Path, Set<KeyType>> outputs) throws IOException {
        return KeyListCommand.convert(pem, outputs, new PrintStream(progress, true, StandardCharsets.UTF_8));
    }
}
