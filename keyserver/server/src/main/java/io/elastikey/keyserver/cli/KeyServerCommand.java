package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.KeyServer;
import io.elastikey.protocol.config.ConfigOptions;
import io.elastikey.keyserver.config.KeyServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code elastikey keyserver}: runs the key server until SIGINT or SIGTERM. */
@Command(name = "keyserver", mixinStandardHelpOptions = true,
        description = {"Serve SKI (JSON over HTTPS, mutual TLS, HTTP/1.1 and HTTP/2) with the keys in the data "
                + "directory.",
                "With no configuration: elastikey-data in the Elastikey directory, 127.0.0.1:8443, admin on "
                        + "127.0.0.1:9080, a dev PKI and KEK created on first start; --dev also writes a policy "
                        + "granting the dev client every key. Settings: docs/keyserver.md."},
        footer = {"", "Examples:",
                "  ./elastikey keyserver --dev",
                "  ./elastikey keyserver --data /var/lib/elastikey --set listen=:8443 --set crypto.workers=8",
                "  ./elastikey keyserver --store 'redis://127.0.0.1:6379?prefix=ek:'",
                "  ELASTIKEY_TLS_CRL=/etc/elastikey/clients.crl ./elastikey keyserver --config keyserver.conf"})
public final class KeyServerCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options = new ConfigOptions();

    @Option(names = "--store", paramLabel = "DIR|URI",
            description = "Where the keys are kept (the 'store' setting): a directory (ElasticStore, default "
                    + "<data>/keys) or a Redis URI, e.g. redis://127.0.0.1:6379?prefix=ek: (docs/redis.md).")
    void store(String location) {
        options.set("store", location);
    }

    @Option(names = "--dev",
            description = "Development mode (the 'dev' setting): on a start with the development PKI and no policy "
                    + "file, write one granting the development client every key. Never for production.")
    void dev(boolean on) {
        if (on) { // not "false" when absent: ELASTIKEY_DEV or the config file may still turn it on
            options.set("dev", "true");
        }
    }

    @Override
    public Integer call() throws Exception {
        KeyServerConfig config = KeyServerConfig.from(options.source());
        KeyServer server = KeyServer.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "keyserver-shutdown"));
        System.out.println("key server ready on " + server.address() + ", admin on " + server.adminAddress()
                + " (Ctrl-C stops)");
        stopped.await();
        return 0;
    }
}
