// KeylessTag -- the item tags of a Keyless message body (PROTOCOLS.md section 2).
package io.elastikey.protocol.keyless;

/**
 * Tags of the tag-length-value items that make up a Keyless body. Only those this side reads or writes are named;
 * a decoder skips any other tag.
 */
public final class KeylessTag {
    /** SHA-256 over the upper-case hex of an RSA modulus (32 bytes). */
    public static final int CERTIFICATE_DIGEST = 0x01;
    /** The TLS server name the client's handshake asked for. */
    public static final int SERVER_NAME = 0x02;
    /** The TLS client's address (4 or 16 bytes). */
    public static final int CLIENT_IP = 0x03;
    /** SHA-1 over the subjectPublicKey bit string of the key's SubjectPublicKeyInfo (20 bytes). */
    public static final int SUBJECT_KEY_IDENTIFIER = 0x04;
    /** The address the TLS client connected to (4 or 16 bytes). */
    public static final int SERVER_IP = 0x05;
    /** The one-byte {@link KeylessOpcode}. */
    public static final int OPCODE = 0x11;
    /** What to sign or decrypt; in an answer, the result. */
    public static final int PAYLOAD = 0x12;
    /** Meaningless bytes that pad a request to {@link KeylessCodec#PADDED_LENGTH}. */
    public static final int PADDING = 0x20;

    private KeylessTag() {
    }
}
