// SkiHttpVersion -- the two HTTP versions SKI is spoken over, with their ALPN names.
package io.elastikey.protocol.ski;

import java.util.List;

import io.netty.handler.ssl.ApplicationProtocolNames;

/**
 * HTTP/1.1 (one request at a time per connection) or HTTP/2 (many streams per connection). Both are served on the
 * key server's one port and chosen through ALPN during the TLS handshake.
 */
public enum SkiHttpVersion {
    HTTP_1_1("1.1", ApplicationProtocolNames.HTTP_1_1, List.of(ApplicationProtocolNames.HTTP_1_1)),
    /** Offers {@code http/1.1} after {@code h2}: a server without HTTP/2 then fails with a clear message. */
    HTTP_2("2", ApplicationProtocolNames.HTTP_2,
            List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1));

    private final String label;
    private final String alpnName;
    private final List<String> offered;

    SkiHttpVersion(String label, String alpnName, List<String> offered) {
        this.label = label;
        this.alpnName = alpnName;
        this.offered = offered;
    }

    /** The ALPN protocol name a connection of this version negotiates. */
    public String alpnName() {
        return alpnName;
    }

    /** The ALPN names a client of this version offers, most preferred first. */
    public List<String> offeredProtocols() {
        return offered;
    }

    /** {@code "1.1"} or {@code "2"}, as on command lines. */
    public String label() {
        return label;
    }

    /**
     * The version a command line names: {@code 1.1}, {@code 2}, or the ALPN names {@code http/1.1} and {@code h2}.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static SkiHttpVersion parse(String text) {
        for (SkiHttpVersion version : values()) {
            if (version.label.equals(text) || version.alpnName.equals(text)) {
                return version;
            }
        }
        throw new IllegalArgumentException("HTTP version " + text + " is neither 1.1 nor 2");
    }
}
