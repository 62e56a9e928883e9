// AgentConfig -- every setting of scaleupd, validated once; the command line and tests build one.
package io.elastikey.scaleup.agent;

import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.socket.SocketScaleUpClient;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The agent's settings. {@link Builder#build()} fails fast with a message naming the bad value; it never clamps.
 *
 * @param socketPath where the agent listens
 * @param poolMb the memory the agent lends, in MiB
 * @param clients the configured clients by name, with their reservations and caps
 * @param knownClientsOnly whether a client not in {@code clients} is refused (otherwise: min 0, max = pool)
 * @param actuator what a grant change does besides the ledger
 * @param cgroupBaseMb for the cgroup actuator: the limit a client's process has with no grant
 * @param cgroupRoot for the cgroup actuator: where the cgroup file system is mounted
 * @param procRoot for the cgroup actuator: where {@code /proc} is mounted
 * @param cgroupParent for the cgroup actuator: the cgroup under which the agent makes one per client and moves each
 *                     client's process in; {@code null}: write the limit of the cgroup the client is already in
 * @param ledgerFile where the grants are kept across restarts
 * @param ledgerSync what a written ledger survives: the agent's death (default) or power loss too
 * @param hotplugDelay a pause per grant change, simulating memory hot-plug; zero for none
 * @param maxConnections connections open at once; one more is closed at accept
 * @param idleTimeout a connection with no request for this long is closed
 * @param maxInFlight requests one connection may have waiting for an answer; more get an error answer
 * @param giveBackTimeout how long a client asked to give memory back has before the agent lowers its grant itself
 */
public record AgentConfig(Path socketPath, long poolMb, Map<String, ClientLimits> clients, boolean knownClientsOnly,
                          ActuatorKind actuator, long cgroupBaseMb, Path cgroupRoot, Path procRoot, Path cgroupParent,
                          Path ledgerFile,
                          Ledger.Sync ledgerSync, Duration hotplugDelay, int maxConnections, Duration idleTimeout, int maxInFlight,
                          Duration giveBackTimeout) {

    /** The actuators {@code --actuator} names. */
    public enum ActuatorKind { LEDGER, CGROUP }

    public static final long DEFAULT_POOL_MB = 4096;
    public static final long DEFAULT_CGROUP_BASE_MB = 512;
    public static final Duration DEFAULT_GIVE_BACK_TIMEOUT = Duration.ofSeconds(10);
    public static final Path DEFAULT_LEDGER = Path.of("elastikey-data", "scaleupd", "ledger.json");

    public AgentConfig {
        clients = Map.copyOf(clients);
    }

    /** The limits for {@code name}: configured, or min 0 and max = pool; {@code null} if unknown clients are refused. */
    public ClientLimits limitsFor(String name) {
        ClientLimits known = clients.get(name);
        if (known != null || knownClientsOnly) {
            return known;
        }
        return new ClientLimits(name, 0, poolMb);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Defaults: the default socket, a 4 GiB pool, the ledger actuator, no hot-plug delay. */
    public static final class Builder {
        private Path socketPath = SocketScaleUpClient.defaultSocketPath();
        private long poolMb = DEFAULT_POOL_MB;
        private final Map<String, ClientLimits> clients = new LinkedHashMap<>();
        private boolean knownClientsOnly;
        private ActuatorKind actuator = ActuatorKind.LEDGER;
        private long cgroupBaseMb = DEFAULT_CGROUP_BASE_MB;
        private Path cgroupRoot = Path.of("/sys/fs/cgroup");
        private Path cgroupParent;
        private Path procRoot = Path.of("/proc");
        private Path ledgerFile = DEFAULT_LEDGER;
        private Ledger.Sync ledgerSync = Ledger.Sync.PROCESS;
        private Duration hotplugDelay = Duration.ZERO;
        private int maxConnections = 1024;
        private Duration idleTimeout = Duration.ofSeconds(60);
        private Duration giveBackTimeout = DEFAULT_GIVE_BACK_TIMEOUT;
        private int maxInFlight = 16;

        public Builder socketPath(Path p) {
            socketPath = p;
            return this;
        }

        public Builder poolMb(long mb) {
            poolMb = mb;
            return this;
        }

        public Builder client(ClientLimits limits) {
            if (clients.putIfAbsent(limits.name(), limits) != null) {
                throw new IllegalArgumentException("client " + limits.name() + " is configured twice");
            }
            return this;
        }

        public Builder clients(List<ClientLimits> all) {
            all.forEach(this::client);
            return this;
        }

        public Builder knownClientsOnly(boolean b) {
            knownClientsOnly = b;
            return this;
        }

        public Builder actuator(ActuatorKind kind) {
            actuator = kind;
            return this;
        }

        public Builder cgroupBaseMb(long mb) {
            cgroupBaseMb = mb;
            return this;
        }

        /** The cgroup file system root and the proc root; a test points both into a fake tree. */
        public Builder cgroupRoots(Path cgroupRoot, Path procRoot) {
            this.cgroupRoot = cgroupRoot;
            this.procRoot = procRoot;
            return this;
        }

        /** The parent of the per-client cgroups; {@code null} (the default) limits the client's own cgroup. */
        public Builder cgroupParent(Path dir) {
            cgroupParent = dir;
            return this;
        }

        public Builder ledgerFile(Path file) {
            ledgerFile = file;
            return this;
        }

        public Builder ledgerSync(Ledger.Sync sync) {
            ledgerSync = sync;
            return this;
        }

        public Builder hotplugDelay(Duration d) {
            hotplugDelay = d;
            return this;
        }

        public Builder maxConnections(int n) {
            maxConnections = n;
            return this;
        }

        public Builder idleTimeout(Duration d) {
            idleTimeout = d;
            return this;
        }

        public Builder giveBackTimeout(Duration d) {
            giveBackTimeout = d;
            return this;
        }

        public Builder maxInFlight(int n) {
            maxInFlight = n;
            return this;
        }

        public AgentConfig build() {
            Objects.requireNonNull(socketPath, "socket path");
            Objects.requireNonNull(ledgerFile, "ledger file");
            Objects.requireNonNull(ledgerSync, "ledger sync");
            Objects.requireNonNull(actuator, "actuator");
            check(poolMb > 0 && poolMb <= io.elastikey.scaleup.protocol.ProtocolLimits.MAX_MEMORY_MB,
                    "pool must be 1 MiB .. 2^40 MiB, got " + poolMb);
            long reserved = 0;
            for (ClientLimits c : clients.values()) {
                check(c.maxMb() <= poolMb, "client " + c.name() + ": max " + c.maxMb() + " MiB exceeds the pool ("
                        + poolMb + " MiB)");
                reserved += c.minMb();
            }
            check(reserved <= poolMb, "the clients' minimums add up to " + reserved + " MiB, more than the pool ("
                    + poolMb + " MiB)");
            check(cgroupBaseMb >= 0, "cgroup base must be >= 0");
            check(!hotplugDelay.isNegative(), "hot-plug delay must be >= 0");
            check(maxConnections > 0, "max connections must be > 0");
            check(!idleTimeout.isNegative() && !idleTimeout.isZero(), "idle timeout must be > 0");
            check(maxInFlight > 0, "max in-flight requests must be > 0");
            check(!giveBackTimeout.isNegative() && !giveBackTimeout.isZero(), "give-back timeout must be > 0");
            return new AgentConfig(socketPath.toAbsolutePath(), poolMb, clients, knownClientsOnly, actuator,
                    cgroupBaseMb, cgroupRoot, procRoot,
                    cgroupParent == null ? null : cgroupParent.toAbsolutePath(), ledgerFile.toAbsolutePath(), ledgerSync, hotplugDelay, maxConnections,
                    idleTimeout, maxInFlight, giveBackTimeout);
        }

        private static void check(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
