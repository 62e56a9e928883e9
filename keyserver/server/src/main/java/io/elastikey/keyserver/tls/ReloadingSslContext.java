package io.elastikey.keyserver.tls;

import io.elastikey.protocol.config.FileWatcher;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's current TLS context, rebuilt when its certificate, key, CA bundle or CRL file
 * changes. New connections use the newest context; open connections keep the one they
 * handshook with, so a reload drops nothing. A reload that fails keeps the context in use and is
 * counted ({@link #failures}).
 */
public final class ReloadingSslContext {
    private final KeyServerConfig config;
    private volatile SslContext current;
    private volatile long generation;
    private final AtomicLong failures = new AtomicLong();

    public ReloadingSslContext(KeyServerConfig config) throws IOException, GeneralSecurityException {
        this.config = config;
        this.current = ServerTlsContexts.build(config);
    }

    private ReloadingSslContext(SslContext fixed) {
        this.config = null;
        this.current = fixed;
    }

    /** A context that never reloads: for a listener that lives seconds ({@code warmup.NetworkWarmup}). */
    public static ReloadingSslContext fixed(SslContext context) {
        return new ReloadingSslContext(context);
    }

    /** Watches the TLS files with {@code watcher}. */
    public void watch(FileWatcher watcher) {
        if (config == null) {
            throw new IllegalStateException("a fixed TLS context has no files to watch");
        }
        List<Path> files = new ArrayList<>(List.of(config.tlsCertificate(), config.tlsKey(), config.tlsClientCa()));
        if (config.tlsCrl() != null) {
            files.add(config.tlsCrl());
        }
        watcher.watch("TLS certificate, key, CA bundle and CRL", files, this::reload);
    }

    /** Builds a new context from the files; on failure the old one stays in use. */
    public void reload() throws IOException, GeneralSecurityException {
        if (config == null) {
            throw new IllegalStateException("a fixed TLS context has no files to reload");
        }
        SslContext old = current;
        try {
            current = ServerTlsContexts.build(config);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            failures.incrementAndGet();
            throw e;
        }
        generation++;
        // Engines made from the old context hold their own references (OpenSSL contexts are
        // reference counted), so open connections keep working after this release.
        ReferenceCountUtil.release(old);
    }

    public SslContext current() {
        return current;
    }

    /** Reloads that failed (a missing, unreadable or broken file); the context in use stayed. */
    public long failures() {
        return failures.get();
    }

    /** How many times the context has been rebuilt; exported as a metric. */
    public long generation() {
        return generation;
    }
}
