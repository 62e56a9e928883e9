// CannedAnswer -- what SkiTestServer does with a request: answer, refuse, stay silent, hang up, or hold it.
package io.elastikey.protocol.ski;

/** The test server's reply to one request, chosen by the test's behaviour function. */
public sealed interface CannedAnswer {
    /** {@code 200 {"output": ...}}. */
    record Output(byte[] output) implements CannedAnswer {
    }

    /** {@code 200 {"output": ...}} with {@code Connection: close}, and the connection closed after it (HTTP/1.1). */
    record OutputThenClose(byte[] output) implements CannedAnswer {
    }

    /** The error's status and exact body. */
    record Error(SkiError error) implements CannedAnswer {
    }

    /** Any status and body, e.g. a proxy's HTML page. */
    record Raw(int status, String body) implements CannedAnswer {
    }

    /** Never answers; the request stays open until the client gives up or the server stops. */
    record Silence() implements CannedAnswer {
    }

    /** Closes the whole connection instead of answering. */
    record HangUp() implements CannedAnswer {
    }

    /** Echoes the input, but only once {@link SkiTestServer#releaseHeld()} is called or enough requests are held. */
    record Held() implements CannedAnswer {
    }

    static CannedAnswer output(byte[] output) {
        return new Output(output);
    }

    static CannedAnswer outputThenClose(byte[] output) {
        return new OutputThenClose(output);
    }

    static CannedAnswer error(SkiError error) {
        return new Error(error);
    }

    static CannedAnswer raw(int status, String body) {
        return new Raw(status, body);
    }

    static CannedAnswer silence() {
        return new Silence();
    }

    static CannedAnswer hangUp() {
        return new HangUp();
    }

    static CannedAnswer held() {
        return new Held();
    }
}
