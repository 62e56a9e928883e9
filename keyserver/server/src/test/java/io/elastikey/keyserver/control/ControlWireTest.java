// ControlWireTest -- the control socket's request and frames: round trips, and every bound a hostile client meets.
package io.elastikey.keyserver.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.cli.RecordingProgress;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

class ControlWireTest {
    static byte[] request(ControlWire.Request request) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ControlWire.writeRequest(new DataOutputStream(bytes), request);
        return bytes.toByteArray();
    }

    static ControlWire.Request read(byte[] bytes) throws Exception {
        return ControlWire.readRequest(new DataInputStream(new ByteArrayInputStream(bytes)));
    }

    @Test
    void aRequestComesBackAsItWasSentWhateverItsCharacters() throws Exception {
        ControlWire.Request sent = new ControlWire.Request("/srv/keys",
                List.of("import", "--tag=ünïcode,日本", "--", "/tmp/a key.pem", ""));

        assertThat(read(request(sent))).isEqualTo(sent);
    }

    @Test
    void everyLengthIsBoundedBeforeAnythingIsAllocated() throws Exception {
        ByteBuffer tooLong = ByteBuffer.allocate(6 + 4).put(ControlWire.MAGIC).putInt(Integer.MAX_VALUE);
        assertThatThrownBy(() -> read(tooLong.array())).isInstanceOf(ControlProtocolException.class)
                .hasMessageContaining("an argument of 2147483647 bytes");

        ByteBuffer negative = ByteBuffer.allocate(6 + 4).put(ControlWire.MAGIC).putInt(-1);
        assertThatThrownBy(() -> read(negative.array())).isInstanceOf(ControlProtocolException.class)
                .hasMessageContaining("an argument of 4294967295 bytes");

        ByteBuffer none = ByteBuffer.allocate(6 + 4 + 4).put(ControlWire.MAGIC).putInt(0).putInt(0);
        assertThatThrownBy(() -> read(none.array())).isInstanceOf(ControlProtocolException.class)
                .hasMessageContaining("a command of 0 arguments");

        assertThatThrownBy(() -> read("EKCTL2".getBytes(StandardCharsets.US_ASCII)))
                .isInstanceOf(ControlProtocolException.class).hasMessageContaining("bad magic");
    }

    @Test
    void theWholeRequestIsBoundedNotOnlyEachArgument() throws Exception {
        String large = "x".repeat(ControlWire.MAX_STRING_BYTES);
        List<String> arguments = new ArrayList<>(List.of("import"));
        arguments.addAll(Collections.nCopies(ControlWire.MAX_REQUEST_BYTES / ControlWire.MAX_STRING_BYTES + 1, large));

        assertThatThrownBy(() -> read(request(new ControlWire.Request("s", arguments))))
                .isInstanceOf(ControlProtocolException.class).hasMessageContaining("in all");
    }

    @Test
    void aRequestCutShortIsAnEndOfStreamNotAProtocolError() throws Exception {
        byte[] whole = request(new ControlWire.Request("/srv/keys", List.of("count")));

        assertThatThrownBy(() -> read(Arrays.copyOf(whole, whole.length - 1)))
                .isInstanceOf(EOFException.class);
    }

    @Test
    void framesCarryOutputProgressAndTheExitStatusInOrder() throws Exception {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        FrameSender sender = new FrameSender(wire);
        PrintWriter out = sender.writer(ControlWire.OUT);
        PrintWriter err = sender.writer(ControlWire.ERR);
        out.println("imported 3 keys");
        sender.start("importing", 3, "keys");
        sender.update(2);
        sender.finish(3);
        err.println("skipped é.pem");
        sender.exit(7);

        RecordingProgress seen = new RecordingProgress();
        StringWriter relayedOut = new StringWriter();
        StringWriter relayedErr = new StringWriter();
        int status = relay(wire.toByteArray(), new PrintWriter(relayedOut),
                new PrintWriter(relayedErr), seen);

        assertThat(status).isEqualTo(7);
        assertThat(relayedOut.toString()).isEqualTo("imported 3 keys" + System.lineSeparator());
        assertThat(relayedErr.toString()).isEqualTo("skipped é.pem" + System.lineSeparator());
        assertThat(seen.events()).containsExactly("start importing 3 keys", "update 2", "finish 3");
    }

    @Test
    void aFrameOfAnUnknownTypeOrSizeIsRefused() {
        byte[] unknown = ByteBuffer.allocate(5).put((byte) 'Q').putInt(0).array();
        assertThatThrownBy(() -> relay(unknown, new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()), new RecordingProgress()))
                .isInstanceOf(ControlProtocolException.class).hasMessageContaining("unknown type 81");

        byte[] huge = ByteBuffer.allocate(5).put(ControlWire.OUT).putInt(ControlWire.MAX_FRAME_BYTES + 1).array();
        assertThatThrownBy(() -> relay(huge, new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()), new RecordingProgress()))
                .isInstanceOf(ControlProtocolException.class).hasMessageContaining("a frame of");
    }

    /** The client's relay over frames already received. */
    static int relay(byte[] frames, PrintWriter out, PrintWriter err, RemoteProgress progress) throws Exception {
        return ControlClient.relay(new DataInputStream(new ByteArrayInputStream(frames)), out, err, progress);
    }
}
