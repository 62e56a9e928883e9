// GokeylessWire -- Keyless frames built and read byte by byte as Cloudflare's reference client does, for tests.
package io.elastikey.keyserver;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The reference client's framing (cloudflare/gokeyless protocol.go, read for the layout, written here from the
 * protocol description): header {@code 01 00 LEN(2) ID(4)}; items opcode, payload, SKI, digest in that order, then
 * a padding item that brings the whole message to 1,024 bytes. Deliberately independent of the production codec,
 * so a shared mistake cannot pass unnoticed.
 */
final class GokeylessWire {
    static final int TAG_DIGEST = 0x01;
    static final int TAG_SNI = 0x02;
    static final int TAG_CLIENT_IP = 0x03;
    static final int TAG_SKI = 0x04;
    static final int TAG_OPCODE = 0x11;
    static final int TAG_PAYLOAD = 0x12;
    static final int TAG_PADDING = 0x20;
    private static final int PAD_TO = 1024;

    private GokeylessWire() {
    }

    /** A request as the reference client writes it; {@code ski}, {@code digest}, {@code payload} may be null. */
    static byte[] request(int id, int opcode, byte[] ski, byte[] digest, byte[] payload) {
        ByteBuffer body = ByteBuffer.allocate(65535);
        item(body, TAG_OPCODE, new byte[] {(byte) opcode});
        if (payload != null && payload.length > 0) {
            item(body, TAG_PAYLOAD, payload);
        }
        if (ski != null) {
            item(body, TAG_SKI, ski);
        }
        if (digest != null) {
            item(body, TAG_DIGEST, digest);
        }
        if (body.position() + 8 < PAD_TO) {
            int left = Math.max(0, PAD_TO - (body.position() + 8 + 3));
            item(body, TAG_PADDING, new byte[left]);
        }
        return frame(1, id, body.array(), body.position());
    }

    /** A frame with any major version and any body bytes. */
    static byte[] frame(int major, int id, byte[] body, int length) {
        ByteBuffer out = ByteBuffer.allocate(8 + length);
        out.put((byte) major).put((byte) 0).putShort((short) length).putInt(id).put(body, 0, length);
        return out.array();
    }

    static void item(ByteBuffer body, int tag, byte[] data) {
        body.put((byte) tag).putShort((short) data.length).put(data);
    }

    /** One answer: its ID and items by tag. */
    record Answer(int id, Map<Integer, byte[]> items) {
        int opcode() {
            return items.get(TAG_OPCODE)[0] & 0xFF;
        }

        byte[] payload() {
            return items.get(TAG_PAYLOAD);
        }

        /** The error byte of an {@code 0xFF} answer, or -1 for a success. */
        int error() {
            return opcode() == 0xFF ? payload()[0] & 0xFF : -1;
        }
    }

    static Answer read(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int major = data.readUnsignedByte();
        data.readUnsignedByte();
        int length = data.readUnsignedShort();
        int id = data.readInt();
        if (major != 1) {
            throw new IOException("answer of major version " + major);
        }
        byte[] body = new byte[length];
        data.readFully(body);
        Map<Integer, byte[]> items = new HashMap<>();
        ByteBuffer buffer = ByteBuffer.wrap(body);
        while (buffer.remaining() >= 3) {
            int tag = buffer.get() & 0xFF;
            byte[] value = new byte[buffer.getShort() & 0xFFFF];
            buffer.get(value);
            items.put(tag, value);
        }
        return new Answer(id, items);
    }

    static void write(OutputStream out, byte[] frame) throws IOException {
        out.write(frame);
        out.flush();
    }
}
