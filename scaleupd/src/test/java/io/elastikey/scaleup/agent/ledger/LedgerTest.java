package io.elastikey.scaleup.agent.ledger;

import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ClientLimits;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.elastikey.scaleup.agent.pool.Owner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LedgerTest {
    @TempDir
    Path dir;

    @Test
    void aMissingFileIsAnEmptyLedgerAndWritesRoundTrip() throws Exception {
        Ledger ledger = new Ledger(dir.resolve("sub/ledger.json"), Ledger.Sync.POWER);
        assertThat(ledger.read()).isEmpty();
        ledger.write(Map.of("keyserver", 1024L, "edge", 1L));
        assertThat(ledger.read()).containsExactlyInAnyOrderEntriesOf(Map.of("keyserver", 1024L, "edge", 1L));
        ledger.write(Map.of());
        assertThat(ledger.read()).isEmpty();
        assertThat(Files.readString(ledger.file())).startsWith("{\"format\":\"elastikey-scaleupd-ledger\"");
        assertThat(dir.resolve("sub/ledger.json.tmp")).doesNotExist();
    }

    @Test
    void aStaleTempFileFromACrashIsIgnored() throws Exception {
        Ledger ledger = new Ledger(dir.resolve("ledger.json"), Ledger.Sync.PROCESS);
        ledger.write(Map.of("a", 5L));
        Files.writeString(dir.resolve("ledger.json.tmp"), "{\"format\":\"elastikey-scal");
        assertThat(ledger.read()).containsEntry("a", 5L);
    }

    @Test
    void ownersAreWrittenWithTheirGrantsAndAVersionOneLedgerHasNone() throws Exception {
        Ledger ledger = new Ledger(dir.resolve("ledger.json"), Ledger.Sync.PROCESS);
        ledger.write(Map.of("keyserver", 64L), Map.of("keyserver", new Owner(1001, 4242)));
        assertThat(ledger.readAll()).isEqualTo(new Ledger.Contents(Map.of("keyserver", 64L),
                Map.of("keyserver", new Owner(1001, 4242))));
        assertThat(Files.readString(ledger.file())).contains("\"version\":2",
                "\"owners\":{\"keyserver\":{\"uid\":1001,\"pid\":4242}}");
        Files.writeString(ledger.file(), "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":1,\"grants\":{\"a\":5}}");
        assertThat(ledger.readAll()).isEqualTo(new Ledger.Contents(Map.of("a", 5L), Map.of()));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "",
            "{",
            "[]",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":1}",
            "{\"version\":1,\"grants\":{}}",
            "{\"format\":\"other\",\"version\":1,\"grants\":{}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":3,\"grants\":{}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":2,\"grants\":{},\"owners\":{\"a\":{\"uid\":1,\"pid\":2}}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":2,\"grants\":{\"a\":5},\"owners\":{\"a\":{\"uid\":\"1\",\"pid\":2}}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":2,\"grants\":{\"a\":5},\"owners\":{\"a\":{\"uid\":1}}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":2,\"grants\":{\"a\":5},\"owners\":{\"a\":{\"uid\":-1,\"pid\":2}}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":2,\"grants\":{\"a\":5},\"owners\":[]}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":1,\"grants\":{\"a\":\"5\"}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":1,\"grants\":{\"a\":-5}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":1,\"grants\":{\"bad name\":5}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":1,\"grants\":{\"a\":5,\"a\":6}}",
            "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":1,\"grants\":{\"a\":5}} {}",
    })
    void aCorruptLedgerIsAnErrorNamingTheFile(String content) throws Exception {
        Path file = dir.resolve("ledger.json");
        Files.writeString(file, content);
        assertThatThrownBy(() -> new Ledger(file, Ledger.Sync.POWER).read()).isInstanceOf(LedgerException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("corrupt");
    }

    @Test
    void theAgentRefusesToStartOnACorruptLedger() throws Exception {
        Path file = dir.resolve("ledger.json");
        Files.writeString(file, "{\"grants\":");
        AgentConfig config = AgentConfig.builder().socketPath(dir.resolve("a.sock")).ledgerFile(file).build();
        assertThatThrownBy(() -> ScaleUpAgent.start(config)).isInstanceOf(LedgerException.class)
                .hasMessageContaining(file.toString());
        assertThat(Files.readString(file)).isEqualTo("{\"grants\":");
        assertThat(dir.resolve("a.sock")).doesNotExist();
    }

    @Test
    void aPoolShrunkBelowTheLedgersGrantsIsReportedAndGrowsAreDenied() throws Exception {
        Path file = dir.resolve("ledger.json");
        new Ledger(file, Ledger.Sync.POWER).write(Map.of("keyserver", 3000L, "edge", 500L));
        AgentConfig config = AgentConfig.builder().socketPath(dir.resolve("a.sock")).ledgerFile(file)
                .poolMb(2048).client(new ClientLimits("keyserver", 0, 2048)).knownClientsOnly(true).build();
        try (ScaleUpAgent agent = ScaleUpAgent.start(config);
             SocketScaleUpClient ks = new SocketScaleUpClient(agent.socketPath(), "keyserver", Duration.ofSeconds(5))) {
            assertThat(agent.pool().overCommitMb()).isEqualTo(3500 - 2048);
            assertThat(agent.startupWarnings()).anySatisfy(w -> assertThat(w).contains("over-committed by 1452 MiB"));
            assertThat(agent.startupWarnings()).anySatisfy(w -> assertThat(w).contains("keyserver holds 3000 MiB")
                    .contains("above its max"));
            assertThat(agent.startupWarnings()).anySatisfy(w -> assertThat(w).contains("edge").contains("not configured"));
            assertThat(ks.status().grantedMb()).isEqualTo(3000);
            assertThat(ks.rescale(3100, "").status()).isEqualTo(Status.DENIED);
            assertThat(ks.rescale(1000, "").status()).isEqualTo(Status.GRANTED);
        }
    }

    @Test
    void aLedgerThatCannotBeWrittenRefusesTheChangeWithAnError() throws Exception {
        AgentConfig config = AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).build();
        try (ScaleUpAgent agent = ScaleUpAgent.start(config);
             SocketScaleUpClient c = new SocketScaleUpClient(agent.socketPath(), "keyserver", Duration.ofSeconds(5))) {
            Files.createDirectories(dir.resolve("ledger.json.tmp")); // the temp file cannot be created now
            var answer = c.rescale(100, "");
            assertThat(answer.status()).isEqualTo(Status.ERROR);
            assertThat(answer.message()).contains("ledger could not be written");
            assertThat(answer.grantedMb()).isZero();
            assertThat(agent.pool().grants()).isEmpty();
        }
    }
}
