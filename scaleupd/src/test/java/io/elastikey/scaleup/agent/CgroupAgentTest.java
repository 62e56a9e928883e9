package io.elastikey.scaleup.agent;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent with the cgroup actuator over a fake tree: the peer PID comes from the real socket (this JVM), the
 * cgroup files are fakes.
 */
class CgroupAgentTest {
    @TempDir
    Path dir;

    @Test
    void aGrantIsWrittenToThePeersCgroupAndAFailureIsSaidPlainly() throws Exception {
        long pid = ProcessHandle.current().pid();
        Path proc = Files.createDirectories(dir.resolve("proc/" + pid));
        Files.writeString(proc.resolve("cgroup"), "0::/elastikey/keyserver\n");
        Path cgroup = dir.resolve("cgroup");
        Path max = Files.createDirectories(cgroup.resolve("elastikey/keyserver")).resolve("memory.max");
        Files.writeString(max, "max\n");
        Files.writeString(max.resolveSibling("cgroup.procs"), pid + "\n");
        AgentConfig config = AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(2048).actuator(AgentConfig.ActuatorKind.CGROUP)
                .cgroupRoots(cgroup, dir.resolve("proc")).cgroupBaseMb(256).hotplugDelay(Duration.ofMillis(5))
                .build();
        try (ScaleUpAgent agent = ScaleUpAgent.start(config);
             SocketScaleUpClient c = new SocketScaleUpClient(agent.socketPath(), "keyserver", Duration.ofSeconds(5))) {
            assertThat(agent.actuatorName()).isEqualTo("cgroup");
            ScaleUpResponse r = c.rescale(1024, "");
            assertThat(r.status()).isEqualTo(Status.GRANTED);
            assertThat(r.message()).contains("cgroup limit 1280 MiB written");
            assertThat(Files.readString(max)).isEqualTo(Long.toString(1280L * 1024 * 1024));

            Files.delete(max);
            ScaleUpResponse stands = c.rescale(512, "");
            assertThat(stands.status()).isEqualTo(Status.GRANTED);
            assertThat(stands.grantedMb()).isEqualTo(512);
            assertThat(stands.message()).contains("cgroup limit not applied").contains("does not exist");
            assertThat(agent.pool().grants()).containsEntry("keyserver", 512L);
        }
    }

    @Test
    void withAParentTheAgentMakesTheClientsCgroupAndMovesThePeerIn() throws Exception {
        long pid = ProcessHandle.current().pid();
        Path parent = Files.createDirectories(dir.resolve("memory/elastikey"));
        Files.writeString(parent.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
        Path client = Files.createDirectories(parent.resolve("store-a")); // the kernel would make these files
        Files.writeString(client.resolve("memory.limit_in_bytes"), "");
        Files.writeString(client.resolve("cgroup.procs"), "");
        AgentConfig config = AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(2048).actuator(AgentConfig.ActuatorKind.CGROUP)
                .cgroupParent(parent).cgroupBaseMb(256).build();
        try (ScaleUpAgent agent = ScaleUpAgent.start(config);
             SocketScaleUpClient c = new SocketScaleUpClient(agent.socketPath(), "store-a", Duration.ofSeconds(5))) {
            ScaleUpResponse r = c.rescale(512, "");
            assertThat(r.status()).isEqualTo(Status.GRANTED);
            assertThat(r.message()).contains("cgroup limit 768 MiB written").contains("process " + pid + " moved");
            assertThat(Files.readString(client.resolve("memory.limit_in_bytes")))
                    .isEqualTo(Long.toString(768L * 1024 * 1024));
            assertThat(Files.readString(client.resolve("cgroup.procs"))).isEqualTo(Long.toString(pid));
        }
    }
}
