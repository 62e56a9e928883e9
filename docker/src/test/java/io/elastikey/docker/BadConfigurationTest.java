// BadConfigurationTest -- the key server's image, started with a configuration it cannot use, exits at once with a
// message that names the problem, as an operator reading `docker logs` needs.
package io.elastikey.docker;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BadConfigurationTest {

    @BeforeAll
    static void images() throws Exception {
        Docker.requireImages();
    }

    @Test
    void aMisspelledSettingInTheMountedConfigurationFileStopsTheKeyServerNamingIt() throws Exception {
        Path conf = Docker.writeTemp("keyserver", "listn = 127.0.0.1:8443\n");
        try {
            Docker.Run run = Docker.run(Docker.IMAGE, null, null, List.of("keyserver"), Duration.ofMinutes(2),
                    conf + ":/etc/elastikey/keyserver.conf");

            assertThat(run.exitCode()).as(run.output()).isNotZero();
            assertThat(run.output()).contains("elastikey keyserver:").contains("listn")
                    .contains("/etc/elastikey/keyserver.conf");
        } finally {
            Files.deleteIfExists(conf);
        }
    }

    @Test
    void aKekThatIsNotBase64Of32BytesStopsTheKeyServerSayingSo() throws Exception {
        Docker.Run run = Docker.run(Docker.IMAGE, null, List.of("env", "ELASTIKEY_KEK=not-a-key",
                "/opt/elastikey/bin/entrypoint"), List.of("keyserver", "--dev"), Duration.ofMinutes(2));

        assertThat(run.exitCode()).as(run.output()).isNotZero();
        assertThat(run.output()).contains("elastikey keyserver:").containsIgnoringCase("kek");
    }
}
