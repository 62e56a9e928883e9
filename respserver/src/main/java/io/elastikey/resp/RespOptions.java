// RespOptions -- who may talk to a RespServer and how: users, TLS, and the bounds of ELASTIC.RESIZE.
package io.elastikey.resp;

import io.netty.handler.ssl.SslContext;

import java.util.Objects;

/**
 * The security settings of a {@link RespServer}, apart from its {@link RespLimits}: immutable,
 * built with {@link #builder()} (Lettuce's options style). The defaults are those of a server
 * bound to loopback for local use: no users (no AUTH; administration from loopback only, see
 * {@link AccessControl}), no TLS, and the governor's resize bounds ({@link ResizeBounds#defaults()}).
 */
public final class RespOptions {
    private final RespUsers users;
    private final SslContext tls;
    private final ResizeBounds resizeBounds;
    private final Runnable shutdown;

    private RespOptions(Builder b) {
        this.users = b.users;
        this.tls = b.tls;
        this.resizeBounds = b.resizeBounds;
        this.shutdown = b.shutdown;
    }

    public static RespOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public RespUsers users() {
        return users;
    }

    /** The server-side TLS context, or null for plain TCP. */
    public SslContext tls() {
        return tls;
    }

    public ResizeBounds resizeBounds() {
        return resizeBounds;
    }

    /** What {@code SHUTDOWN} starts, or null: the command is refused. */
    public Runnable shutdown() {
        return shutdown;
    }

    public static final class Builder {
        private RespUsers users = RespUsers.none();
        private SslContext tls;
        private ResizeBounds resizeBounds = ResizeBounds.defaults();
        private Runnable shutdown;

        private Builder() {
        }

        public Builder users(RespUsers v) {
            users = Objects.requireNonNull(v, "users");
            return this;
        }

        /** Serve TLS with {@code v} ({@link RespTls#serverContext}); null: plain TCP. */
        public Builder tls(SslContext v) {
            if (v != null && v.isClient()) {
                throw new IllegalArgumentException("tls: a client context cannot serve");
            }
            tls = v;
            return this;
        }

        public Builder resizeBounds(ResizeBounds v) {
            resizeBounds = Objects.requireNonNull(v, "resizeBounds");
            return this;
        }

        /**
         * What an admin's {@code SHUTDOWN} starts; it must not wait for the server to close, since it runs on the
         * thread of a command the close waits for. Unset (the default), SHUTDOWN is refused: a server inside another
         * program stops when that program says so.
         */
        public Builder shutdown(Runnable v) {
            shutdown = v;
            return this;
        }

        public RespOptions build() {
            return new RespOptions(this);
        }
    }
}
