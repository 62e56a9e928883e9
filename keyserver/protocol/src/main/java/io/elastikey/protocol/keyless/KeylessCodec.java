// KeylessCodec -- the byte layout of Keyless messages: the 8-byte header and the tag-length-value items.
package io.elastikey.protocol.keyless;

import io.netty.buffer.ByteBuf;

/**
 * Reads message bodies and writes whole messages, as PROTOCOLS.md section 2 and Cloudflare's clients lay them out:
 * a header of major version, minor version, body length (16 bits) and request ID (32 bits), all big-endian, then
 * items of tag (1 byte), length (16 bits) and data.
 *
 * <p>Requests are padded to {@value #PADDED_LENGTH} bytes with a padding item, as the reference client does, so
 * their length says nothing about their content. Answers are not padded: the reference server pads them, but no
 * client depends on it, and at tens of thousands of answers a second the padding would cost more TLS work than
 * the answers themselves.
 *
 * <p>Reading is strict about what would make a request ambiguous (an opcode item that is not one byte, a known tag
 * twice, an identifier of the wrong length, an item running past the body) and skips tags it does not know, so
 * newer clients' extra items do no harm.
 */
public final class KeylessCodec {
    public static final int HEADER_LENGTH = 8;
    public static final int MAJOR_VERSION = 1;
    public static final int MINOR_VERSION = 0;
    /** The length, header included, that requests are padded to. */
    public static final int PADDED_LENGTH = 1024;
    /** The longest body the header's 16-bit length can announce. */
    public static final int MAX_BODY_LENGTH = 0xFFFF;

    private static final int ITEM_HEADER_LENGTH = 3;
    private static final int SKI_LENGTH = 20;
    private static final int DIGEST_LENGTH = 32;

    private KeylessCodec() {
    }

    /**
     * The items of a body, read from {@code body}'s readable bytes (which are consumed).
     *
     * @throws KeylessFormatException when the items break a rule of the class comment
     */
    public static KeylessMessage readBody(int id, ByteBuf body) throws KeylessFormatException {
        int opcode = -1;
        byte[] payload = null;
        byte[] ski = null;
        byte[] digest = null;
        while (body.isReadable()) {
            if (body.readableBytes() < ITEM_HEADER_LENGTH) {
                throw new KeylessFormatException(body.readableBytes() + " bytes after the last item");
            }
            int tag = body.readUnsignedByte();
            int length = body.readUnsignedShort();
            if (length > body.readableBytes()) {
                throw new KeylessFormatException("item 0x" + Integer.toHexString(tag) + " of " + length
                        + " bytes runs past the end of the body");
            }
            switch (tag) {
                case KeylessTag.OPCODE -> {
                    if (opcode >= 0 || length != 1) {
                        throw new KeylessFormatException(opcode >= 0 ? "two opcode items" : "an opcode item of "
                                + length + " bytes");
                    }
                    opcode = body.readUnsignedByte();
                }
                case KeylessTag.PAYLOAD -> payload = once(payload, body, length, -1, "payload");
                case KeylessTag.SUBJECT_KEY_IDENTIFIER -> ski = once(ski, body, length, SKI_LENGTH, "subject key identifier");
                case KeylessTag.CERTIFICATE_DIGEST -> digest = once(digest, body, length, DIGEST_LENGTH, "certificate digest");
                default -> body.skipBytes(length); // padding, addresses, server name, and tags we do not know
            }
        }
        if (opcode < 0) {
            throw new KeylessFormatException("no opcode item");
        }
        return new KeylessMessage(id, opcode, payload, ski, digest);
    }

    private static byte[] once(byte[] seen, ByteBuf body, int length, int requiredLength, String what)
            throws KeylessFormatException {
        if (seen != null) {
            throw new KeylessFormatException("two " + what + " items");
        }
        if (requiredLength >= 0 && length != requiredLength) {
            throw new KeylessFormatException("a " + what + " item of " + length + " bytes (not " + requiredLength + ")");
        }
        byte[] data = new byte[length];
        body.readBytes(data);
        return data;
    }

    /**
     * Writes a request padded to {@value #PADDED_LENGTH} bytes, items in the reference client's order: opcode,
     * payload, subject key identifier, certificate digest, padding.
     *
     * @param ski     20 bytes, or {@code null}
     * @param digest  32 bytes, or {@code null}
     * @param payload the payload, or {@code null} for none
     */
    public static void writeRequest(ByteBuf out, int id, int opcode, byte[] ski, byte[] digest, byte[] payload) {
        int bodyLength = item(1) + (payload == null ? 0 : item(payload.length))
                + (ski == null ? 0 : item(ski.length)) + (digest == null ? 0 : item(digest.length));
        int padding = Math.max(0, PADDED_LENGTH - HEADER_LENGTH - bodyLength - ITEM_HEADER_LENGTH);
        boolean padded = HEADER_LENGTH + bodyLength < PADDED_LENGTH;
        int total = bodyLength + (padded ? item(padding) : 0);
        writeHeader(out, id, total);
        out.writeByte(KeylessTag.OPCODE).writeShort(1).writeByte(opcode);
        writeItem(out, KeylessTag.PAYLOAD, payload);
        writeItem(out, KeylessTag.SUBJECT_KEY_IDENTIFIER, ski);
        writeItem(out, KeylessTag.CERTIFICATE_DIGEST, digest);
        if (padded) {
            out.writeByte(KeylessTag.PADDING).writeShort(padding).writeZero(padding);
        }
    }

    /** Writes an answer: the opcode item, then the payload item when {@code payload} is not {@code null}. */
    public static void writeAnswer(ByteBuf out, int id, KeylessOpcode opcode, byte[] payload) {
        writeHeader(out, id, item(1) + (payload == null ? 0 : item(payload.length)));
        out.writeByte(KeylessTag.OPCODE).writeShort(1).writeByte(opcode.code());
        writeItem(out, KeylessTag.PAYLOAD, payload);
    }

    /** Writes an error answer: opcode {@code 0xFF} and the one-byte error code. */
    public static void writeError(ByteBuf out, int id, KeylessError error) {
        writeAnswer(out, id, KeylessOpcode.ERROR, new byte[] {(byte) error.code()});
    }

    /** The bytes {@link #writeAnswer} writes, for sizing a buffer. */
    public static int answerLength(byte[] payload) {
        return HEADER_LENGTH + item(1) + (payload == null ? 0 : item(payload.length));
    }

    private static void writeHeader(ByteBuf out, int id, int bodyLength) {
        if (bodyLength > MAX_BODY_LENGTH) {
            throw new IllegalArgumentException("a Keyless body of " + bodyLength + " bytes does not fit its header");
        }
        out.writeByte(MAJOR_VERSION).writeByte(MINOR_VERSION).writeShort(bodyLength).writeInt(id);
    }

    private static void writeItem(ByteBuf out, int tag, byte[] data) {
        if (data != null) {
            out.writeByte(tag).writeShort(data.length).writeBytes(data);
        }
    }

    private static int item(int dataLength) {
        return ITEM_HEADER_LENGTH + dataLength;
    }
}
