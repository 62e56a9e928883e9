// ConnectionState -- what a connection remembers between commands: its id, name and a buffer-size hint.
package io.elastikey.resp;

/** Read and written by one worker at a time (a connection runs one task at a time). */
final class ConnectionState {
    final long id;
    volatile String name;
    /** The size of the last value read, to size the next reply buffer right the first time. */
    int valueSizeHint = 4096;

    ConnectionState(long id) {
        this.id = id;
    }
}
