// Docker -- what every container test needs: the engine or a skip that says why, the images built once per run,
// free loopback ports, named volumes, one-shot containers and polling until a server answers.
package io.elastikey.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerResponse;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import com.github.dockerjava.api.async.ResultCallback;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The container tests run against images built from this very build (docker/scripts/build-images.sh), never
 * pulled ones, so what is tested is what an operator would deploy. Every container uses the host's network
 * (no Docker network is created: bridge networks take private address ranges, which the build machines keep
 * off limits), which is why each test picks free loopback ports instead of relying on published ones.
 */
final class Docker {

    static final String IMAGE = "elastikey:latest";
    static final String REDIS_IMAGE = "elastikey-redis:latest";
    static final String PROMETHEUS_IMAGE = "elastikey-prometheus:latest";
    /** The image's data directory: keys, KEK, PKI, store data (docs/containers.md). */
    static final String DATA = "/srv/elastikey-data";

    private static boolean built;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private Docker() {
    }

    /**
     * Skips the calling test class, in one line saying why, when no Docker engine answers; otherwise builds the
     * images (once per test JVM; the layer cache makes a rebuild of unchanged jars nearly free).
     */
    static synchronized void requireImages() throws Exception {
        Assumptions.assumeTrue(DockerClientFactory.instance().isDockerAvailable(),
                "no Docker engine answers on this machine (./elastikey test starts one when it runs as root with "
                        + "apt-get; see docs/containers.md): container tests skipped");
        if (built) {
            return;
        }
        Path script = Path.of(System.getProperty("elastikey.docker.dir", "."), "scripts", "build-images.sh");
        Process p = new ProcessBuilder(script.toString(), "elastikey", "redis", "prometheus")
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("building the images failed:\n" + output);
        }
        built = true;
    }

    static DockerClient client() {
        return DockerClientFactory.instance().client();
    }

    /** A loopback port nothing listens on now (host networking: the containers bind it themselves). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A new named volume's name; {@link #removeVolume} deletes it. Docker creates it on first mount. */
    static String newVolume(String purpose) {
        return "elastikey-test-" + purpose + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static void removeVolume(String name) {
        try {
            client().removeVolumeCmd(name).exec();
        } catch (RuntimeException e) {
            // Already gone, or still held by a container the test could not remove: nothing to add.
        }
    }

    /** A container of {@code image} on the host's network with these volumes ({@code name:/path} each). */
    static GenericContainer<?> container(String image, String... volumes) {
        List<Bind> binds = new ArrayList<>();
        for (String v : volumes) {
            int colon = v.indexOf(':');
            binds.add(new Bind(v.substring(0, colon), new Volume(v.substring(colon + 1))));
        }
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(image))
                .withNetworkMode("host")
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withBinds(binds))
                .withLogConsumer(new Slf4jLogConsumer(org.slf4j.LoggerFactory.getLogger("container." + image)));
        return c;
    }

    /** The outcome of a container run to its end: exit code and everything it printed. */
    record Run(long exitCode, String output) {
    }

    /**
     * Runs a container to its end (at most {@code timeout}) and returns its exit code and output. With docker-java
     * directly: Testcontainers' one-shot strategy removes a failed container before its output can be read.
     */
    static Run run(String image, String user, List<String> entrypoint, List<String> command, Duration timeout,
                   String... volumes) throws InterruptedException {
        List<Bind> binds = new ArrayList<>();
        for (String v : volumes) {
            int colon = v.indexOf(':');
            binds.add(new Bind(v.substring(0, colon), new Volume(v.substring(colon + 1))));
        }
        var create = client().createContainerCmd(image)
                .withHostConfig(HostConfig.newHostConfig().withNetworkMode("host").withBinds(binds))
                .withCmd(command);
        if (entrypoint != null) {
            create.withEntrypoint(entrypoint);
        }
        if (user != null) {
            create.withUser(user);
        }
        CreateContainerResponse created = create.exec();
        String id = created.getId();
        try {
            client().startContainerCmd(id).exec();
            Integer code = client().waitContainerCmd(id).start().awaitStatusCode(timeout.toSeconds(), TimeUnit.SECONDS);
            StringBuilder out = new StringBuilder();
            client().logContainerCmd(id).withStdOut(true).withStdErr(true).exec(new ResultCallback.Adapter<Frame>() {
                @Override
                public void onNext(Frame frame) {
                    out.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                }
            }).awaitCompletion(30, TimeUnit.SECONDS);
            return new Run(code, out.toString());
        } finally {
            client().removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec();
        }
    }

    /** GET a plain-HTTP URL: the status and body, or -1 when nothing answers. */
    static HttpResponse<String> get(String url) throws InterruptedException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        }
    }

    static boolean answers200(String url) throws InterruptedException {
        HttpResponse<String> r = get(url);
        return r != null && r.statusCode() == 200;
    }

    /**
     * Polls until {@code condition} holds; fails with {@code what} after {@code limit}. A wait for a server to come
     * up under a shared machine's load, not a measurement: the limit is generous and nothing asserts a duration.
     */
    static void awaitTrue(String what, Duration limit, ThrowingCondition condition) throws Exception {
        Instant end = Instant.now().plus(limit);
        while (!condition.holds()) {
            if (Instant.now().isAfter(end)) {
                throw new AssertionError("not within " + limit.toSeconds() + " s: " + what);
            }
            Thread.sleep(250);
        }
    }

    /** A condition that may throw while the thing polled is still starting. */
    interface ThrowingCondition {
        boolean holds() throws Exception;
    }

    /** Reads a file of a running container. */
    static String readFile(GenericContainer<?> container, String path) {
        return container.copyFileFromContainer(path, in -> new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }

    static Path writeTemp(String prefix, String content) throws IOException {
        Path f = Files.createTempFile(prefix, ".tmp");
        Files.writeString(f, content);
        f.toFile().setReadable(true, false);
        return f;
    }
}
