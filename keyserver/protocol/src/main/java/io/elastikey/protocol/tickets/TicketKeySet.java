// TicketKeySet -- the ticket keys an edge should hold now, and their JSON form on the wire.
package io.elastikey.protocol.tickets;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The keys for one moment of the rotation schedule: the {@code primary} one encrypts new tickets; the others only
 * decrypt: the previous period's, so a ticket resumes until two rotations have passed, and the next period's, so an
 * edge that rotates a little before another issues tickets the other already accepts.
 *
 * <pre>
 * {"rotation_seconds":3600,"keys":[{"epoch":490000,"name":"...","hmac":"...","aes":"..."},...]}
 * </pre>
 * The first key is the primary; parts are standard base64. Never logged: these keys decrypt every ticket.
 *
 * @param rotation how long one key is primary
 * @param keys     the primary first, then the keys that only decrypt
 */
public record TicketKeySet(Duration rotation, List<TicketKey> keys) {
    /** Where a key server serves the set, on its SKI endpoint (GET, mutual TLS, {@code allow tickets}). */
    public static final String PATH = "/ticket-keys";

    private static final JsonFactory JSON = new JsonFactory();
    private static final int MAX_KEYS = 8;

    public TicketKeySet {
        require(!rotation.isNegative() && !rotation.isZero(), "the rotation period is not positive");
        require(!keys.isEmpty() && keys.size() <= MAX_KEYS, "a set holds 1 to " + MAX_KEYS + " keys");
        keys = List.copyOf(keys);
    }

    /** The key that encrypts new tickets. */
    public TicketKey primary() {
        return keys.get(0);
    }

    public byte[] toJson() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeNumberField("rotation_seconds", rotation.toSeconds());
            json.writeArrayFieldStart("keys");
            Base64.Encoder base64 = Base64.getEncoder();
            for (TicketKey key : keys) {
                json.writeStartObject();
                json.writeNumberField("epoch", key.epoch());
                json.writeStringField("name", base64.encodeToString(key.name()));
                json.writeStringField("hmac", base64.encodeToString(key.hmacKey()));
                json.writeStringField("aes", base64.encodeToString(key.aesKey()));
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory does not fail", e);
        }
        return out.toByteArray();
    }

    /**
     * Reads the JSON form.
     *
     * @throws IllegalArgumentException when {@code body} is not a valid set (the message names the rule, not a key)
     */
    public static TicketKeySet fromJson(byte[] body) {
        try (JsonParser parser = JSON.createParser(body)) {
            require(parser.nextToken() == JsonToken.START_OBJECT, "not a JSON object");
            long rotation = -1;
            List<TicketKey> keys = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "rotation_seconds" -> {
                        require(value == JsonToken.VALUE_NUMBER_INT, "rotation_seconds is not an integer");
                        rotation = parser.getLongValue();
                    }
                    case "keys" -> keys = readKeys(parser, value);
                    default -> parser.skipChildren();
                }
            }
            require(rotation > 0, "rotation_seconds missing or not positive");
            require(keys != null, "keys missing");
            return new TicketKeySet(Duration.ofSeconds(rotation), keys);
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable ticket key set: " + e.getClass().getSimpleName());
        }
    }

    private static List<TicketKey> readKeys(JsonParser parser, JsonToken start) throws IOException {
        require(start == JsonToken.START_ARRAY, "keys is not an array");
        List<TicketKey> keys = new ArrayList<>();
        while (parser.nextToken() == JsonToken.START_OBJECT) {
            require(keys.size() < MAX_KEYS, "more than " + MAX_KEYS + " keys");
            long epoch = Long.MIN_VALUE;
            byte[] name = null;
            byte[] hmac = null;
            byte[] aes = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "epoch" -> {
                        require(value == JsonToken.VALUE_NUMBER_INT, "epoch is not an integer");
                        epoch = parser.getLongValue();
                    }
                    case "name" -> name = part(parser, value, "name");
                    case "hmac" -> hmac = part(parser, value, "hmac");
                    case "aes" -> aes = part(parser, value, "aes");
                    default -> parser.skipChildren();
                }
            }
            require(epoch != Long.MIN_VALUE && name != null && hmac != null && aes != null,
                    "a key without epoch, name, hmac or aes");
            keys.add(new TicketKey(epoch, name, hmac, aes));
        }
        return keys;
    }

    private static byte[] part(JsonParser parser, JsonToken value, String field) throws IOException {
        require(value == JsonToken.VALUE_STRING, field + " is not a string");
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(parser.getText());
        } catch (IllegalArgumentException e) {
            bytes = null;
        }
        require(bytes != null, field + " is not base64");
        require(bytes.length == TicketKey.PART_LENGTH, field + " is not " + TicketKey.PART_LENGTH + " bytes");
        return bytes;
    }

    private static void require(boolean condition, String problem) {
        if (!condition) {
            throw new IllegalArgumentException("bad ticket key set: " + problem);
        }
    }

    @Override
    public String toString() {
        return "TicketKeySet[rotation=" + rotation + ", epochs=" + keys.stream().map(TicketKey::epoch).toList() + "]";
    }
}
