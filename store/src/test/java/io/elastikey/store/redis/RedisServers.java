// RedisServers -- starts real Redis deployments for tests: standalone, password, ACL user, TLS, Cluster, Sentinel.
package io.elastikey.store.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Factory of real Redis processes on free loopback ports, each in a directory of its own under the caller's
 * temporary directory. redis-server must be installed: {@code ./elastikey test} installs it, and a test run
 * without it fails with a message saying so rather than skipping.
 */
public final class RedisServers {
    private RedisServers() {
    }

    /** The path of {@code name} ({@code redis-server}, {@code redis-cli}); fails clearly when it is missing. */
    public static Path executable(String name) {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/usr/local/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name);
            }
        }
        throw new IllegalStateException(name + " is not installed: the Redis tests need a real Redis 7. Run "
                + "./elastikey test (it installs redis-server), or apt-get install redis-server redis-tools");
    }

    /** A standalone server; {@code configLines} are added to its redis.conf (e.g. {@code requirepass s3cret}). */
    public static RedisServer standalone(Path dir, String... configLines) throws IOException, InterruptedException {
        int port = freePort(false);
        return new RedisServer(dir.resolve("redis-" + port), port, List.of(configLines), false, null).start();
    }

    /**
     * A server that speaks only TLS on its port, its certificate from {@code certificates}; clients must present a
     * certificate from the same CA.
     */
    public static RedisServer tls(Path dir, TlsFiles certificates) throws IOException, InterruptedException {
        int port = freePort(false);
        return new RedisServer(dir.resolve("redis-tls-" + port), port, List.of("port 0", "tls-port " + port,
                "tls-cert-file " + certificates.serverCertificate(), "tls-key-file " + certificates.serverKey(),
                "tls-ca-cert-file " + certificates.ca(), "tls-auth-clients yes"), false,
                "Ready to accept connections").start();
    }

    /**
     * Whether this redis-server was built with TLS (Debian's is). Redis reads its arguments in order and stops at
     * the first it does not know: without TLS that is {@code tls-port}, with TLS the made-up directive after it.
     * Either way nothing starts.
     */
    public static boolean supportsTls() throws IOException, InterruptedException {
        String out = run(List.of(executable("redis-server").toString(), "--tls-port", "0",
                "--elastikey-probe", "yes"));
        return out.contains("elastikey-probe");
    }

    /**
     * Three masters, slots spread by {@code redis-cli --cluster create}, no replicas. Waits until every node says the
     * cluster is ok, knows all three nodes and sees every slot assigned: {@code cluster_state:ok} alone can come while
     * a node's gossip still lacks a peer's address, and a client that reads the topology from that node then sends a
     * batch to a master it cannot reach (a CI run's "SET (batch of 50) failed: no answer").
     */
    public static Cluster cluster(Path dir) throws IOException, InterruptedException {
        List<RedisServer> nodes = new ArrayList<>();
        try {
            List<String> create = new ArrayList<>(List.of(executable("redis-cli").toString(), "--cluster", "create"));
            for (int i = 0; i < 3; i++) {
                int port = freePort(true);
                nodes.add(new RedisServer(dir.resolve("cluster-" + port), port, List.of("cluster-enabled yes",
                        "cluster-config-file nodes.conf", "cluster-node-timeout 5000"), false, null).start());
                create.add("127.0.0.1:" + port);
            }
            create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            String output = run(create);
            awaitAll("every node to know the whole cluster\n" + output, nodes,
                    out -> out.contains("cluster_state:ok") && out.contains("cluster_known_nodes:3")
                            && out.contains("cluster_slots_ok:16384"), "cluster", "info");
            awaitAll("every node to have every peer's address\n" + output, nodes,
                    out -> out.lines().filter(line -> line.contains(" connected")).count() == 3
                            && !out.contains("handshake") && !out.contains("noaddr") && !out.contains("fail"),
                    "cluster", "nodes");
            return new Cluster(nodes);
        } catch (IOException | InterruptedException | RuntimeException e) {
            nodes.forEach(RedisServer::close);
            throw e;
        }
    }

    /** A Sentinel monitoring {@code master} under the name {@code masterName}; waits until it knows the master. */
    public static RedisServer sentinel(Path dir, RedisServer master, String masterName)
            throws IOException, InterruptedException {
        int port = freePort(false);
        RedisServer sentinel = new RedisServer(dir.resolve("sentinel-" + port), port, List.of(
                "sentinel monitor " + masterName + " 127.0.0.1 " + master.port() + " 1",
                "sentinel down-after-milliseconds " + masterName + " 60000"), true, null).start();
        try {
            awaitAll("the Sentinel to know " + masterName, List.of(sentinel), out -> out.contains("127.0.0.1"),
                    "sentinel", "get-master-addr-by-name", masterName);
            return sentinel;
        } catch (RuntimeException e) {
            sentinel.close();
            throw e;
        }
    }

    /** Waits until {@code redis-cli ARGS} gives an answer that is {@code ready} on every server. */
    private static void awaitAll(String what, List<RedisServer> servers, Predicate<String> ready, String... args)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (RedisServer server : servers) {
            while (true) {
                String out = server.cli(args);
                if (ready.test(out)) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("gave up waiting for " + what + "; last answer: " + out);
                }
                Thread.sleep(100);
            }
        }
    }

    /** Runs a command and returns its output (stdout and stderr). */
    static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    /** A loopback port nobody listens on; for a Cluster node also its bus port (+10000). */
    static int freePort(boolean withBus) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
            if (!withBus) {
                return port;
            }
            if (port + 10000 <= 65535) {
                try (ServerSocket bus = new ServerSocket()) {
                    bus.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + 10000));
                    return port;
                } catch (IOException taken) {
                    // try another
                }
            }
        }
        throw new IOException("no free loopback port pair found");
    }

    /** Three cluster masters; closing kills them all. */
    public record Cluster(List<RedisServer> nodes) implements AutoCloseable {
        /** {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}. */
        public String uri() {
            StringBuilder s = new StringBuilder("redis-cluster://");
            for (RedisServer node : nodes) {
                s.append(s.length() > 16 ? "," : "").append("127.0.0.1:").append(node.port());
            }
            return s.toString();
        }

        @Override
        public void close() {
            nodes.forEach(RedisServer::close);
        }
    }

    /** PEM files of a test CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl. */
    public record TlsFiles(Path ca, Path serverCertificate, Path serverKey, Path clientCertificate, Path clientKey) {

        /** Mints the files into {@code dir}; fails when openssl is missing. */
        public static TlsFiles create(Path dir) throws IOException, InterruptedException {
            Files.createDirectories(dir);
            Path ext = dir.resolve("server.ext");
            Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
            String openssl = "openssl";
            sh(dir, openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Elastikey Redis test CA");
            for (String name : List.of("server", "client")) {
                sh(dir, openssl, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out",
                        name + ".key");
                sh(dir, openssl, "req", "-new", "-key", name + ".key", "-out", name + ".csr", "-subj",
                        "/CN=" + name);
                List<String> sign = new ArrayList<>(List.of(openssl, "x509", "-req", "-in", name + ".csr", "-CA",
                        "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", name + ".pem", "-days", "2"));
                if (name.equals("server")) {
                    sign.addAll(List.of("-extfile", "server.ext"));
                }
                sh(dir, sign.toArray(new String[0]));
            }
            return new TlsFiles(dir.resolve("ca.pem"), dir.resolve("server.pem"), dir.resolve("server.key"),
                    dir.resolve("client.pem"), dir.resolve("client.key"));
        }

        private static void sh(Path dir, String... command) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IOException(String.join(" ", command) + " failed: " + out);
            }
        }
    }
}
