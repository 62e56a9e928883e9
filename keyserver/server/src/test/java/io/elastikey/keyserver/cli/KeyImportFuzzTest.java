// KeyImportFuzzTest -- coverage-guided fuzzing of the key import path: PEM, DER, PKCS#8, PKCS#12 (Jazzer; docs/security.md).
package io.elastikey.keyserver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.elastikey.keyserver.keys.JdkPrivateKeyParser;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Pem;
import io.elastikey.protocol.pki.PemException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@code keys import} reads files an operator was handed: {@link KeyFile#read} tells PEM, DER and PKCS#12 apart and
 * parses them (through {@code PemFiles}/{@code Pem}, the JDK's certificate factory and key store, Bouncy Castle's
 * PKCS#8 and PKCS#1 readers), and {@link JdkPrivateKeyParser} turns PKCS#8 into keys. Whatever the bytes, each must
 * return or fail with its documented exception ({@link IOException} or {@link GeneralSecurityException}, and
 * {@link CliException} for PKCS#12 passwords; {@link PemException} for {@link Pem}), never a raw runtime exception
 * that would end the command with a stack trace. The first byte of an input picks the file name's extension and
 * whether a password is given, the rest is the file. Seeds: {@code KeyImportFuzzTestInputs/importFile/}.
 */
class KeyImportFuzzTest {
    private static final String[] NAMES = {"key.pem", "key.der", "chain.crt", "bundle.p12"};
    private static Path dir;

    /**
     * On {@code /dev/shm} (memory) where it exists: rewriting the file for every input on a disk file system cost
     * a third of the target's time in the kernel (ext4 writes a truncated file's data back on close).
     */
    @BeforeAll
    static void makeDirectory() throws IOException {
        Path shm = Path.of("/dev/shm");
        dir = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "key-import-fuzz")
                : Files.createTempDirectory("key-import-fuzz");
    }

    @AfterAll
    static void removeDirectory() throws IOException {
        for (String name : NAMES) {
            Files.deleteIfExists(dir.resolve(name));
        }
        Files.deleteIfExists(dir);
    }

    @FuzzTest
    void importFile(byte[] input) throws IOException {
        if (input.length == 0) {
            return;
        }
        Path file = dir.resolve(NAMES[input[0] & 3]);
        char[] password = (input[0] & 4) == 0 ? null : "changeit".toCharArray();
        byte[] content = Arrays.copyOfRange(input, 1, input.length);
        Files.write(file, content);
        try {
            KeyFile read = KeyFile.read(file, password);
            assertThat(read.certificates()).doesNotContainNull();
            assertThat(read.pairs()).allSatisfy(pair -> assertThat(pair.chain()).isNotEmpty());
        } catch (IOException | GeneralSecurityException | CliException e) {
            assertThat(e.getMessage()).isNotBlank();
        }

        String text = new String(content, StandardCharsets.ISO_8859_1);
        try {
            Pem.readPrivateKey(text);
        } catch (PemException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
        try {
            Pem.readCertificates(text);
        } catch (PemException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
        KeyType type = KeyType.values()[(input[0] >>> 3 & 0x1f) % KeyType.values().length];
        try {
            new JdkPrivateKeyParser().parse(type, content);
        } catch (GeneralSecurityException e) {
            assertThat(e.getMessage()).isNotNull();
        }
    }
}
