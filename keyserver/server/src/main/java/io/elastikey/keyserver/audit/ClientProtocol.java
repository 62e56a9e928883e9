// ClientProtocol -- which protocol a request came over, as audit lines and metrics name it.
package io.elastikey.keyserver.audit;

/** The key server's two request protocols. They share every step but the codec, so only this tells them apart. */
public enum ClientProtocol {
    /** SKI: JSON over HTTP/2 or HTTP/1.1 (PROTOCOLS.md section 1). */
    SKI("ski"),
    /** Cloudflare's Keyless binary protocol (PROTOCOLS.md section 2). */
    KEYLESS("keyless");

    private final String label;

    ClientProtocol(String label) {
        this.label = label;
    }

    /** The lower-case name in audit lines and metric names. */
    public String label() {
        return label;
    }
}
