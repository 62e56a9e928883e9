// ControlProgress -- a keys command's progress bar across the control socket, in both directions.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.control.RemoteProgress;

/**
 * Inside the server, a command's progress goes out over the control socket ({@link #sending}); in the shell that
 * sent the command, it is drawn with the launcher's own bar ({@link #drawing}), as when the command runs there.
 */
final class ControlProgress {
    private ControlProgress() {
    }

    /** A progress factory whose displays are sent to {@code remote}. */
    static Progress.Factory sending(RemoteProgress remote) {
        return (out, label, total, unit) -> {
            remote.start(label, total, unit);
            return new Progress() {
                @Override
                public void update(long done) {
                    remote.update(done);
                }

                @Override
                public void finish(long done) {
                    remote.finish(done);
                }
            };
        };
    }

    /** Draws what a server sends with {@code factory}, on standard error. */
    static RemoteProgress drawing(Progress.Factory factory) {
        return new RemoteProgress() {
            private Progress current = Progress.NONE.start(System.err, "", 0, "");

            @Override
            public void start(String label, long total, String unit) {
                current = factory.start(System.err, label, total, unit);
            }

            @Override
            public void update(long done) {
                current.update(done);
            }

            @Override
            public void finish(long done) {
                current.finish(done);
            }
        };
    }
}
