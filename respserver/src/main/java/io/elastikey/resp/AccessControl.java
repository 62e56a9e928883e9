// AccessControl -- AUTH, and whether a connection's user may run a command: NOAUTH and NOPERM otherwise.
package io.elastikey.resp;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.Locale;

/**
 * Decides, for each command of each connection, whether it runs; answers AUTH (and HELLO's AUTH
 * option) with Redis 6+'s replies. With {@link RespUsers#required() users configured}, a new
 * connection has no user: only AUTH, HELLO and QUIT run, everything else gets
 * {@code -NOAUTH Authentication required.}; AUTH with a wrong pair gets
 * {@code -WRONGPASS invalid username-password pair or user is disabled.} and leaves the connection
 * as it was. After AUTH, the user's {@link RespRole} decides, and a command it does not allow gets
 * {@code -NOPERM}.
 *
 * <p>Without users the server is open, as Redis without {@code requirepass} is, but not for
 * administration from afar: a connection from a loopback address runs as an admin, any other as
 * {@code readwrite}, so {@code ELASTIC.RESIZE} from the network needs a configured admin user.
 * Thread-safe: the user is a volatile field of the connection's state, written by AUTH on the
 * worker that runs the connection's commands in order.
 */
final class AccessControl {
    static final String NOAUTH = "NOAUTH Authentication required.";
    static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    private static final RespUsers.User LOCAL = new RespUsers.User(RespUsers.DEFAULT_USER, RespRole.ADMIN);
    private static final RespUsers.User REMOTE = new RespUsers.User(RespUsers.DEFAULT_USER, RespRole.READWRITE);

    private final RespUsers users;

    AccessControl(RespUsers users) {
        this.users = users;
    }

    boolean required() {
        return users.required();
    }

    /** The user a new connection starts as: none when AUTH is required, else by where it comes from. */
    RespUsers.User initialUser(boolean loopback) {
        return users.required() ? null : loopback ? LOCAL : REMOTE;
    }

    /** Whether {@code conn} may run {@code c} now: the test on the event loop's fast path. */
    static boolean allows(Command c, ConnectionState conn) {
        if (c.access == Command.Access.CONNECTION) {
            return true;
        }
        RespUsers.User user = conn.user;
        return user != null && user.role().allows(c.access);
    }

    /** Null when {@code conn} may run {@code c}; else the error to answer with. */
    RedisMessage refusal(Command c, ConnectionState conn) {
        if (allows(c, conn)) {
            return null;
        }
        RespUsers.User user = conn.user;
        if (user == null) {
            return Replies.error(NOAUTH);
        }
        String name = c.wireName.toLowerCase(Locale.ROOT);
        if (!users.required()) {
            return Replies.error("NOPERM '" + name + "' is allowed only from a loopback address while no "
                    + "password is configured (--requirepass, --user or --users-file)");
        }
        return Replies.error("NOPERM User " + user.name() + " has no permissions to run the '" + name
                + "' command");
    }

    /** {@code AUTH password} (the default user) or {@code AUTH username password}. */
    RedisMessage auth(RespRequest r, ConnectionState conn) {
        if (r.argc() > 3) {
            return Replies.error("ERR syntax error");
        }
        if (!users.required()) {
            if (r.argc() == 3 && r.is(1, RespUsers.DEFAULT_USER)) {
                return Replies.OK; // Redis's default user without a password takes any
            }
            return r.argc() == 2
                    ? Replies.error("ERR AUTH <password> called without any password configured for the default "
                    + "user. Are you sure your configuration is correct?")
                    : Replies.error(WRONGPASS);
        }
        String name = r.argc() == 3 ? r.text(1) : RespUsers.DEFAULT_USER;
        RedisMessage error = authenticate(name, r.bytes(r.argc() - 1), conn);
        return error != null ? error : Replies.OK;
    }

    /** Makes {@code name} the connection's user if {@code password} is theirs; null, else the error. */
    RedisMessage authenticate(String name, byte[] password, ConnectionState conn) {
        if (!users.required()) {
            return name.equals(RespUsers.DEFAULT_USER) ? null : Replies.error(WRONGPASS);
        }
        RespUsers.User user = users.authenticate(name, password);
        if (user == null) {
            return Replies.error(WRONGPASS);
        }
        conn.user = user;
        return null;
    }
}
