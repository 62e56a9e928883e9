// SkiRequestReader -- one SKI request object, token by token, checked field by field.
package io.elastikey.protocol.ski;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * Reads one request object from a parser positioned before its first token, and checks every field rule of
 * PROTOCOLS.md section 1 on the way. Field names come from Jackson's symbol table (no allocation) and
 * {@code input} is decoded from the parser's own character buffer, without an intermediate string.
 *
 * <p>Every failure is a {@link SkiException} of {@link SkiError#MALFORMED_REQUEST} whose reason names the field and
 * the rule, never the value: the reason goes to the server's log, and a request's bytes may be a pre-master secret.
 *
 * <p>Leniencies, each because an existing client needs it: unknown fields are skipped whatever their value;
 * {@code protocol}, {@code hash} and {@code scheme} may be {@code null} or {@code ""}, meaning absent (clients that
 * serialise a fixed struct send them so); {@code hash} and {@code scheme}, when present, must be valid names but are
 * only kept for the method that uses them.
 */
final class SkiRequestReader {
    private static final int PROTOCOL = 1;
    private static final int METHOD = 2;
    private static final int HASH = 4;
    private static final int SCHEME = 8;
    private static final int SPKI = 16;
    private static final int INPUT = 32;

    private final JsonParser parser;
    private int seen;
    private List<String> unknownSeen;
    private String protocol;
    private SkiMethod method;
    private SkiHash hash;
    private SignatureScheme scheme;
    private String spki;
    private byte[] input;

    private SkiRequestReader(JsonParser parser) {
        this.parser = parser;
    }

    /** Reads the whole document: one object and nothing after it. */
    static SkiRequest read(JsonParser parser) throws IOException {
        return new SkiRequestReader(parser).readDocument();
    }

    private SkiRequest readDocument() throws IOException {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            throw malformed("the body is not a JSON object");
        }
        for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
            readField(name, parser.nextToken());
        }
        if (parser.nextToken() != null) {
            throw malformed("data after the request object");
        }
        return build();
    }

    private void readField(String name, JsonToken value) throws IOException {
        switch (name) {
            case "protocol" -> protocol = lookUp(PROTOCOL, name, value, true, SkiJson::protocolOf);
            case "method" -> method = lookUp(METHOD, name, value, false, SkiMethod::fromWire);
            case "hash" -> hash = lookUp(HASH, name, value, true, SkiHash::fromWire);
            case "scheme" -> scheme = lookUp(SCHEME, name, value, true, SignatureScheme::fromWire);
            case "spki" -> spki = string(SPKI, name, value, false) ? spki() : null;
            case "input" -> input = string(INPUT, name, value, false) ? input() : null;
            default -> skipUnknown(name);
        }
    }

    /** The named thing a string field holds, or null when an optional field is absent. */
    private <T> T lookUp(int field, String name, JsonToken value, boolean optional, Function<String, T> byName)
            throws IOException {
        if (!string(field, name, value, optional)) {
            return null;
        }
        T named = byName.apply(parser.getText());
        if (named == null) {
            throw malformed("field " + name + " names no " + name + " this server knows");
        }
        return named;
    }

    /**
     * Marks a field seen and checks its value is a string; false when an optional field is absent (null or empty).
     */
    private boolean string(int field, String name, JsonToken value, boolean optional) throws IOException {
        if ((seen & field) != 0) {
            throw malformed("field " + name + " appears twice");
        }
        seen |= field;
        if (optional && (value == JsonToken.VALUE_NULL
                || value == JsonToken.VALUE_STRING && parser.getTextLength() == 0)) {
            return false;
        }
        if (value != JsonToken.VALUE_STRING) {
            throw malformed("field " + name + (value == JsonToken.VALUE_NULL ? " is null" : " is not a string"));
        }
        return true;
    }

    private void skipUnknown(String name) throws IOException {
        if (unknownSeen == null) {
            unknownSeen = new ArrayList<>(2);
        } else if (unknownSeen.contains(name)) {
            throw malformed("an unknown field appears twice");
        }
        unknownSeen.add(name);
        parser.skipChildren();
    }

    private String spki() throws IOException {
        int length = parser.getTextLength();
        if (length != 40 && length != 64) {
            throw malformed("field spki has " + length + " characters, not 40 or 64 hex digits");
        }
        char[] text = parser.getTextCharacters();
        int offset = parser.getTextOffset();
        for (int i = offset; i < offset + length; i++) {
            if (!isHexDigit(text[i])) {
                throw malformed("field spki is not hex");
            }
        }
        return new String(text, offset, length);
    }

    private static boolean isHexDigit(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private byte[] input() throws IOException {
        byte[] bytes;
        try {
            bytes = Base64Text.decode(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
        } catch (IllegalArgumentException e) {
            throw malformed("field input is not standard base64: " + e.getMessage());
        }
        if (bytes.length == 0) {
            throw malformed("field input is empty");
        }
        return bytes;
    }

    private SkiRequest build() {
        if (method == null) {
            throw malformed("field method is missing");
        }
        if (spki == null) {
            throw malformed("field spki is missing");
        }
        if (input == null) {
            throw malformed("field input is missing");
        }
        if (method.usesHash() && hash == null) {
            throw malformed("method " + method.wireName() + " needs field hash");
        }
        if (method == SkiMethod.SIGN && scheme == null) {
            throw malformed("method SIGN needs field scheme");
        }
        return new SkiRequest(protocol, method, method.usesHash() ? hash : null,
                method == SkiMethod.SIGN ? scheme : null, spki, input);
    }

    static SkiException malformed(String reason) {
        return new SkiException(SkiError.MALFORMED_REQUEST, reason);
    }
}
