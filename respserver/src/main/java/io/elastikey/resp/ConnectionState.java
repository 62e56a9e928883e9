// ConnectionState -- what a connection remembers between commands: id, name, user and a buffer-size hint.
package io.elastikey.resp;

/** Read and written by one worker at a time (a connection runs one task at a time). */
final class ConnectionState {
    final long id;
    volatile String name;
    /** Who the connection runs as; null until AUTH when a password is required ({@link AccessControl}). */
    volatile RespUsers.User user;
    /** The size of the last value read, to size the next reply buffer right the first time. */
    int valueSizeHint = 4096;

    ConnectionState(long id, RespUsers.User user) {
        this.id = id;
        this.user = user;
    }
}
