// ScaleUpDaemonCommand -- `scaleupd`: runs the scale-up agent until SIGINT or SIGTERM.
package io.elastikey.scaleup.agent.cli;

import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ClientLimits;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import io.elastikey.scaleup.agent.Sizes;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code elastikey scaleupd}: the scale-up agent (docs/scaleup.md). */
@Command(name = "scaleupd", mixinStandardHelpOptions = true,
        description = {"Lend a memory pool to named clients over a Unix socket (the rescale protocol), keep the grants "
                + "in a ledger file, and optionally apply them as cgroup memory limits.",
                "With no options: $SCALEUP_SOCKET or /tmp/elastikey-scaleupd.sock, a 4g pool, any client may ask "
                        + "(max = pool), ledger elastikey-data/scaleupd/ledger.json, accounting only."},
        footer = {"", "Sizes are MiB unless suffixed: 512m, 4g, 1t. Examples:",
                "  ./elastikey scaleupd --pool 8g --client keyserver:1g:6g --client edge:0:2g",
                "  ./elastikey scaleupd --actuator cgroup --cgroup-base 512m --hotplug-delay 20ms"})
public final class ScaleUpDaemonCommand implements Callable<Integer> {

    @Option(names = "--socket", paramLabel = "PATH",
            description = "Unix socket to listen on (default: $SCALEUP_SOCKET, else /tmp/elastikey-scaleupd.sock).")
    Path socket;

    @Option(names = "--pool", paramLabel = "SIZE", defaultValue = "4g",
            description = "Memory the agent lends (default: ${DEFAULT-VALUE}).")
    String pool;

    @Option(names = "--client", paramLabel = "NAME:MIN:MAX",
            description = "A known client: MIN is reserved for it from the start, MAX caps its grant. Repeatable.")
    List<String> clients = new ArrayList<>();

    @Option(names = "--known-clients-only",
            description = "Deny clients not given with --client (otherwise they get min 0, max = pool).")
    boolean knownClientsOnly;

    @Option(names = "--actuator", paramLabel = "KIND", defaultValue = "ledger", converter = ActuatorConverter.class,
            description = "ledger (accounting only) or cgroup (also set the caller's cgroup memory limit to "
                    + "base + grant). Default: ${DEFAULT-VALUE}.")
    AgentConfig.ActuatorKind actuator;

    @Option(names = "--cgroup-base", paramLabel = "SIZE", defaultValue = "512m",
            description = "cgroup actuator: the limit a process has with no grant (default: ${DEFAULT-VALUE}).")
    String cgroupBase;

    @Option(names = "--cgroup-root", paramLabel = "DIR", defaultValue = "/sys/fs/cgroup",
            description = "cgroup actuator: cgroup file system root (default: ${DEFAULT-VALUE}).")
    Path cgroupRoot;

    @Option(names = "--cgroup-parent", paramLabel = "DIR",
            description = "cgroup actuator: make a memory cgroup per client under DIR (v1 or v2, detected), move "
                    + "each client's process into it and set its limit there; without it, the limit of the cgroup "
                    + "the client is already in (alone) is set.")
    Path cgroupParent;

    @Option(names = "--proc-root", paramLabel = "DIR", defaultValue = "/proc",
            description = "cgroup actuator: proc file system root (default: ${DEFAULT-VALUE}).")
    Path procRoot;

    @Option(names = "--data", paramLabel = "DIR",
            defaultValue = "${sys:elastikey.home:-${sys:user.dir}}/elastikey-data",
            description = "Data directory; the ledger defaults to DIR/scaleupd/ledger.json (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--ledger", paramLabel = "FILE", description = "Ledger file (default: DATA/scaleupd/ledger.json).")
    Path ledger;

    @Option(names = "--ledger-sync", paramLabel = "WHAT", defaultValue = "process",
            converter = LedgerSyncConverter.class,
            description = "What a grant change survives before it is answered: process (the agent's death; no disk "
                    + "flush) or power (power loss too: fsync per change) (default: ${DEFAULT-VALUE}).")
    Ledger.Sync ledgerSync;

    @Option(names = "--hotplug-delay", paramLabel = "DURATION", defaultValue = "0", converter = DurationConverter.class,
            description = "Simulated hot-plug time per grant change, like 20ms (default: ${DEFAULT-VALUE}).")
    Duration hotplugDelay;

    @Option(names = "--max-connections", paramLabel = "N", defaultValue = "1024",
            description = "Connections open at once; more are closed at accept (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--idle-timeout", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
            description = "Close a connection with no traffic for this long (default: ${DEFAULT-VALUE}).")
    Duration idleTimeout;

    @Option(names = "--max-in-flight", paramLabel = "N", defaultValue = "16",
            description = "Unanswered requests per connection; more get an error answer (default: ${DEFAULT-VALUE}).")
    int maxInFlight;

    @Option(names = "--give-back-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.class,
            description = "How long a client asked to give memory back (the pool shrank, or another client needs its "
                    + "fair share) has to shrink and rescale down before the agent lowers its grant and cgroup limit "
                    + "itself (default: ${DEFAULT-VALUE}).")
    Duration giveBackTimeout;

    /** {@code process} or {@code power}, in any case. */
    static final class LedgerSyncConverter implements CommandLine.ITypeConverter<Ledger.Sync> {
        @Override
        public Ledger.Sync convert(String value) {
            try {
                return Ledger.Sync.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("--ledger-sync is process or power, not '" + value + "'");
            }
        }
    }

    /** {@code ledger} or {@code cgroup}, in any case. */
    static final class ActuatorConverter implements CommandLine.ITypeConverter<AgentConfig.ActuatorKind> {
        @Override
        public AgentConfig.ActuatorKind convert(String value) {
            try {
                return AgentConfig.ActuatorKind.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("--actuator is ledger or cgroup, not '" + value + "'");
            }
        }
    }

    /** Runs the command on its own, without the {@code elastikey} launcher. */
    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new ScaleUpDaemonCommand());
        cl.setExecutionExceptionHandler((e, command, parsed) -> {
            command.getErr().println("scaleupd: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return 1;
        });
        System.exit(cl.execute(args));
    }

    /** The configuration these options describe; throws {@link IllegalArgumentException} naming a bad value. */
    public AgentConfig config() {
        AgentConfig.Builder b = AgentConfig.builder()
                .socketPath(socket != null ? socket : SocketScaleUpClient.defaultSocketPath())
                .poolMb(Sizes.parseMb(pool))
                .knownClientsOnly(knownClientsOnly)
                .actuator(actuator)
                .cgroupBaseMb(Sizes.parseMb(cgroupBase))
                .cgroupRoots(cgroupRoot, procRoot)
                .cgroupParent(cgroupParent)
                .ledgerFile(ledger != null ? ledger : data.resolve("scaleupd").resolve("ledger.json"))
                .ledgerSync(ledgerSync)
                .hotplugDelay(hotplugDelay)
                .maxConnections(maxConnections)
                .idleTimeout(idleTimeout)
                .maxInFlight(maxInFlight)
                .giveBackTimeout(giveBackTimeout);
        clients.forEach(c -> b.client(ClientLimits.parse(c)));
        return b.build();
    }

    @Override
    public Integer call() throws Exception {
        ScaleUpAgent agent = ScaleUpAgent.start(config());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            agent.close();
            stopped.countDown();
        }, "scaleupd-shutdown"));
        System.out.println("scaleupd ready on " + agent.socketPath() + " (Ctrl-C stops)");
        stopped.await();
        return 0;
    }
}
