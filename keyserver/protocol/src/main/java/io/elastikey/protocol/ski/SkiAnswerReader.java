// SkiAnswerReader -- turns an SKI answer (status and body) into the output, an SkiException or a bad-answer failure.
package io.elastikey.protocol.ski;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import io.netty.buffer.ByteBuf;

import io.elastikey.protocol.ski.SkiTransportException.Kind;

/**
 * The client's reading of an answer. Existing SKI clients match on the error text, so the text decides; the status
 * only names the error when the body does not (an empty 503 from an overloaded proxy, say). Anything else (an HTML
 * page from a load balancer, a 200 without an output) is no SKI answer at all and fails as
 * {@link Kind#BAD_ANSWER}, which a caller may treat like a transport failure.
 *
 * <p>Unknown fields are skipped, as on the server side. The body is never quoted in an exception: it may carry a
 * signature or a decrypted secret.
 */
final class SkiAnswerReader {
    private static final int OK = 200;

    private byte[] output;
    private String errorText;

    private SkiAnswerReader() {
    }

    static byte[] read(int status, ByteBuf body) throws SkiTransportException {
        SkiAnswerReader answer = new SkiAnswerReader();
        boolean parsed = answer.parse(body);
        if (answer.errorText != null) {
            SkiError error = SkiError.fromText(answer.errorText);
            if (error != null) {
                throw new SkiException(error);
            }
        }
        if (status == OK) {
            if (parsed && answer.output != null) {
                return answer.output;
            }
            throw new SkiTransportException(Kind.BAD_ANSWER, "status 200 without a base64 output");
        }
        SkiError byStatus = SkiError.fromStatus(status);
        if (byStatus != null) {
            throw new SkiException(byStatus);
        }
        throw new SkiTransportException(Kind.BAD_ANSWER, "status " + status + " without an SKI error text");
    }

    /** Reads the fields of interest; false when the body is not one well-formed JSON object with valid fields. */
    private boolean parse(ByteBuf body) {
        try (JsonParser parser = SkiJson.parserOver(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
                JsonToken value = parser.nextToken();
                if ("output".equals(name) && value == JsonToken.VALUE_STRING) {
                    output = Base64Text.decode(parser.getTextCharacters(), parser.getTextOffset(),
                            parser.getTextLength());
                } else if ("error".equals(name) && value == JsonToken.VALUE_STRING) {
                    errorText = parser.getText();
                } else {
                    parser.skipChildren();
                }
            }
            return parser.nextToken() == null;
        } catch (IOException | IllegalArgumentException e) {
            output = null; // a half-read body proves nothing
            return false;
        }
    }
}
