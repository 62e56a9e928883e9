// FrameSender -- the server's half of a control connection: a command's output, progress and exit status as frames.
package io.elastikey.keyserver.control;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@link ControlWire} frames to one client. Frames from the command's thread and its helpers never
 * interleave (every write holds this object's lock). When the client has gone (it was interrupted, say), writes are
 * dropped and the command runs to its end: an import half done because its client left would be worse than one
 * finished unseen.
 */
final class FrameSender implements RemoteProgress {
    private final DataOutputStream out;
    private boolean gone;

    FrameSender(OutputStream socket) {
        this.out = new DataOutputStream(socket);
    }

    /** A writer whose text goes out as {@code type} frames; println, printf and format flush it. */
    PrintWriter writer(byte type) {
        return new PrintWriter(new OutputStreamWriter(new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                for (int at = offset; at < offset + length; at += ControlWire.MAX_FRAME_BYTES) {
                    frame(type, bytes, at, Math.min(ControlWire.MAX_FRAME_BYTES, offset + length - at));
                }
            }
        }, StandardCharsets.UTF_8), true);
    }

    @Override
    public void start(String label, long total, String unit) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream payload = new DataOutputStream(bytes);
            payload.writeUTF(label);
            payload.writeUTF(unit);
            payload.writeLong(total);
            frame(ControlWire.PROGRESS_START, bytes.toByteArray(), 0, bytes.size());
        } catch (IOException e) {
            throw new IllegalStateException(e); // a ByteArrayOutputStream does not fail
        }
    }

    @Override
    public void update(long done) {
        frame(ControlWire.PROGRESS_UPDATE, ByteBuffer.allocate(Long.BYTES).putLong(done).array(), 0, Long.BYTES);
    }

    @Override
    public void finish(long done) {
        frame(ControlWire.PROGRESS_FINISH, ByteBuffer.allocate(Long.BYTES).putLong(done).array(), 0, Long.BYTES);
    }

    void exit(int status) {
        frame(ControlWire.EXIT, ByteBuffer.allocate(Integer.BYTES).putInt(status).array(), 0, Integer.BYTES);
    }

    /** Whether a write found the client gone. */
    synchronized boolean clientGone() {
        return gone;
    }

    private synchronized void frame(byte type, byte[] payload, int offset, int length) {
        if (gone) {
            return;
        }
        try {
            ControlWire.writeFrame(out, type, payload, offset, length);
            out.flush();
        } catch (IOException e) {
            gone = true;
        }
    }
}
