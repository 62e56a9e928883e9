package io.elastikey.edge;

import io.elastikey.edge.admin.EdgeMetrics;
import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.edge.http.EdgeInitializer;
import io.elastikey.edge.tls.EdgeTls;
import io.elastikey.edge.tls.RemoteKeyMethod;
import io.elastikey.keyserver.KeyServer;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyEntry;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.protocol.net.Transports;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SkiClient;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiHttpVersion;
import io.elastikey.protocol.ski.SkiTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class SpikeTest {
    @TempDir
    Path data;

    @Test
    void handshakeThroughKeyServer() throws Exception {
        DevPki pki = DevPki.loadOrCreate(data.resolve("pki"));
        Map<String, String> ks = Map.of("data", data.toString(), "listen", "127.0.0.1:0", "admin.listen", "127.0.0.1:0",
                "keys.expected", "4096");
        KeyServerConfig ksConfig = KeyServerConfig.from(new ConfigSource(ks, Map.of(), null));
        Path certs = Files.createDirectories(data.resolve("edge/certs"));
        try (KeyRepository repo = KeyRepository.open(ksConfig, CryptoProvider.select(ProviderChoice.AUTO).keyParser())) {
            for (KeyType type : List.of(KeyType.EC_P256, KeyType.RSA_2048)) {
                KeyPair pair = TestKeys.of(type);
                String name = (type == KeyType.RSA_2048 ? "rsa" : "ec") + ".edge.test";
                X509Certificate cert = pki.ca().certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, name,
                        List.of(name, "127.0.0.1"), Validity.days(30));
                repo.addAll(List.of(KeyEntry.generated(pair, List.of(cert), Set.of())));
                PemFiles.writeCertificates(certs.resolve(name + ".pem"), List.of(cert, pki.ca().certificate()));
            }
        }
        try (KeyServer server = KeyServer.start(ksConfig)) {
            EdgeConfig config = EdgeConfig.of(Map.of("data", data.toString(), "listen", "127.0.0.1:0"));
            EventLoopGroup group = Transports.newGroup(2, true, "edge");
            SkiClient client = SkiClient.create(SkiTls.clientContext(pki.directory(), SkiHttpVersion.HTTP_2),
                    server.address(), SkiClientOptions.builder().eventLoopGroup(group).serverName("localhost").build());
            EdgeMetrics metrics = new EdgeMetrics();
            EdgeTls tls = new EdgeTls(config, new RemoteKeyMethod(client::execute, metrics));
            Channel ch = new ServerBootstrap().group(group).channel(Transports.serverChannelFor(group))
                    .childHandler(new EdgeInitializer(config, tls, metrics, Hello::new))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            int port = ((InetSocketAddress) ch.localAddress()).getPort();
            for (String name : List.of("ec.edge.test", "rsa.edge.test")) {
                for (String[] proto : List.of(new String[] {"TLSv1.3"}, new String[] {"TLSv1.2"})) {
                    HttpClient http = jdkClient(pki, name, proto, null);
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/x")).build(),
                            HttpResponse.BodyHandlers.ofString());
                    System.out.println(name + " " + proto[0] + " -> " + r.statusCode() + " " + r.body() + " " + r.version()
                            + " " + r.sslSession().get().getCipherSuite());
                    assertThat(r.body()).isEqualTo("hello");
                }
            }
            HttpClient rsaKx = jdkClient(pki, "rsa.edge.test", new String[] {"TLSv1.2"},
                    new String[] {"TLS_RSA_WITH_AES_128_GCM_SHA256"});
            try {
            HttpResponse<String> r = rsaKx.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/x")).build(),
                    HttpResponse.BodyHandlers.ofString());
            System.out.println("rsa kx -> " + r.statusCode() + " " + r.sslSession().get().getCipherSuite());
            } catch (Exception e) { System.out.println("rsa kx failed " + e); }
            Process p = new ProcessBuilder("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-servername", "rsa.edge.test",
                "-tls1_2", "-cipher", "AES128-GCM-SHA256", "-CAfile", pki.directory().resolve("ca.pem").toString())
                .redirectErrorStream(true).start();
            p.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes());
            p.getOutputStream().close();
            System.out.println(new String(p.getInputStream().readAllBytes()));
            System.out.println(metrics.scrape().lines().filter(l -> l.startsWith("elastikey_edge_handshakes_total")
                    || l.startsWith("elastikey_edge_key_operations_total")).toList());
            ch.close().sync();
            client.close();
            group.shutdownGracefully();
        }
    }

    static HttpClient jdkClient(DevPki pki, String sni, String[] protocols, String[] ciphers) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("ca", pki.ca().certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        SSLParameters params = new SSLParameters();
        params.setServerNames(List.of(new SNIHostName(sni)));
        params.setProtocols(protocols);
        if (ciphers != null) {
            params.setCipherSuites(ciphers);
        }
        return HttpClient.newBuilder().sslContext(ctx).sslParameters(params).build();
    }

    static final class Hello extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest msg) {
            var resp = new DefaultFullHttpResponse(msg.protocolVersion(), HttpResponseStatus.OK,
                    Unpooled.copiedBuffer("hello", StandardCharsets.UTF_8));
            HttpUtil.setContentLength(resp, 5);
            ctx.writeAndFlush(resp);
        }
    }
}
