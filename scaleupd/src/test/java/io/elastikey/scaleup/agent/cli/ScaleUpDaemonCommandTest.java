package io.elastikey.scaleup.agent.cli;

import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ClientLimits;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScaleUpDaemonCommandTest {

    private static AgentConfig parse(String... args) {
        ScaleUpDaemonCommand cmd = new ScaleUpDaemonCommand();
        new CommandLine(cmd).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
        return cmd.config();
    }

    @Test
    void defaultsNeedNoOptions() {
        AgentConfig c = parse();
        assertThat(c.poolMb()).isEqualTo(4096);
        assertThat(c.actuator()).isEqualTo(AgentConfig.ActuatorKind.LEDGER);
        assertThat(c.ledgerFile()).isEqualTo(Path.of("elastikey-data/scaleupd/ledger.json").toAbsolutePath());
        assertThat(c.cgroupBaseMb()).isEqualTo(512);
        assertThat(c.hotplugDelay()).isZero();
        assertThat(c.ledgerSync()).isEqualTo(Ledger.Sync.PROCESS);
        assertThat(c.clients()).isEmpty();
        assertThat(c.limitsFor("anyone")).isEqualTo(new ClientLimits("anyone", 0, 4096));
    }

    @Test
    void everyOptionReachesTheConfig() {
        AgentConfig c = parse("--socket", "/tmp/x.sock", "--pool", "8g", "--client", "keyserver:1g:6g",
                "--client", "edge:0:512m", "--known-clients-only", "--actuator", "CGROUP", "--cgroup-base", "256m",
                "--cgroup-root", "/fake/cg", "--proc-root", "/fake/proc", "--data", "/var/lib/ek",
                "--hotplug-delay", "20ms", "--max-connections", "10", "--idle-timeout", "5s", "--max-in-flight", "2", "--ledger-sync", "power");
        assertThat(c.socketPath()).isEqualTo(Path.of("/tmp/x.sock"));
        assertThat(c.poolMb()).isEqualTo(8192);
        assertThat(c.clients()).containsEntry("keyserver", new ClientLimits("keyserver", 1024, 6144))
                .containsEntry("edge", new ClientLimits("edge", 0, 512));
        assertThat(c.limitsFor("stranger")).isNull();
        assertThat(c.actuator()).isEqualTo(AgentConfig.ActuatorKind.CGROUP);
        assertThat(c.cgroupBaseMb()).isEqualTo(256);
        assertThat(c.cgroupRoot()).isEqualTo(Path.of("/fake/cg"));
        assertThat(c.ledgerFile()).isEqualTo(Path.of("/var/lib/ek/scaleupd/ledger.json"));
        assertThat(c.hotplugDelay()).isEqualTo(Duration.ofMillis(20));
        assertThat(c.maxConnections()).isEqualTo(10);
        assertThat(c.idleTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.maxInFlight()).isEqualTo(2);
        assertThat(c.ledgerSync()).isEqualTo(Ledger.Sync.POWER);
    }

    @Test
    void badValuesFailWithAMessageNamingThem() {
        assertThatThrownBy(() -> parse("--pool", "lots")).hasMessageContaining("'lots'");
        assertThatThrownBy(() -> parse("--client", "ks:1g")).hasMessageContaining("NAME:MIN:MAX");
        assertThatThrownBy(() -> parse("--client", "ks:2g:1g")).hasMessageContaining("min <= max");
        assertThatThrownBy(() -> parse("--pool", "1g", "--client", "ks:0:2g")).hasMessageContaining("exceeds the pool");
        assertThatThrownBy(() -> parse("--pool", "1g", "--client", "a:600m:1g", "--client", "b:600m:1g"))
                .hasMessageContaining("minimums add up to 1200 MiB");
        assertThatThrownBy(() -> parse("--client", "a:0:1g", "--client", "a:0:1g")).hasMessageContaining("twice");
        assertThatThrownBy(() -> parse("--hotplug-delay", "soon")).hasMessageContaining("soon");
        assertThatThrownBy(() -> parse("--ledger-sync", "disk")).hasMessageContaining("process or power");
    }

    @Test
    void helpListsTheOptions() {
        StringWriter out = new StringWriter();
        int code = new CommandLine(new ScaleUpDaemonCommand()).setOut(new PrintWriter(out)).execute("--help");
        assertThat(code).isZero();
        assertThat(out.toString()).contains("scaleupd", "--pool", "--client", "--actuator", "--ledger",
                "--hotplug-delay", "--ledger-sync", "--known-clients-only", "--cgroup-base", "--socket");
    }
}
