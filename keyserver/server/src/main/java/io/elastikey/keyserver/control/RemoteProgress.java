// RemoteProgress -- a long keys command's progress, carried between the server that runs it and the client that shows it.
package io.elastikey.keyserver.control;

/**
 * What the control socket carries of a command's progress (an import of a million keys runs for minutes): the
 * server's side sends these calls as frames, the client's side draws them with its own progress bar. One display
 * at a time, from one thread.
 */
public interface RemoteProgress {
    /** A new display: {@code total} units of {@code unit} to go. */
    void start(String label, long total, String unit);

    void update(long done);

    void finish(long done);
}
