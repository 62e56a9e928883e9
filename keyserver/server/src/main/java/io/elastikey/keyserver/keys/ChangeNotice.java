// ChangeNotice -- what one key server tells the others of a shared store when a key changed: the names to forget.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyIds;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The text a removal or update announces on a shared store ({@link io.elastikey.store.KeyValueStore#announce}):
 * {@code forget <id>,<id>,...}, every identifier a client may have named the key by (key ID, aliases, earlier
 * certificates' SHA-1s), hex. Plain text, so {@code redis-cli XRANGE <prefix>changes - +} shows what happened. A
 * notice is untrusted input (anyone who can write to the store can publish): {@link #decode} takes only
 * {@value #MAX_IDENTIFIERS} identifiers in normal form, else nothing.
 */
final class ChangeNotice {
    static final int MAX_IDENTIFIERS = 1024;
    private static final String VERB = "forget ";

    private ChangeNotice() {
    }

    /**
     * The notices that name {@code identifiers}: one per {@value #MAX_IDENTIFIERS}, so that an import updating a
     * thousand keys at once (some four identifiers each) is heard whole rather than refused as too long.
     */
    static List<byte[]> encode(List<String> identifiers) {
        List<byte[]> notices = new ArrayList<>();
        for (int from = 0; from < identifiers.size(); from += MAX_IDENTIFIERS) {
            List<String> part = identifiers.subList(from, Math.min(identifiers.size(), from + MAX_IDENTIFIERS));
            notices.add((VERB + String.join(",", part)).getBytes(StandardCharsets.US_ASCII));
        }
        return notices;
    }

    /** The identifiers of a notice, in normal form; {@code null} for anything else. */
    static List<String> decode(byte[] notice) {
        if (notice.length > VERB.length() + MAX_IDENTIFIERS * 65) {
            return null;
        }
        String text = new String(notice, StandardCharsets.US_ASCII);
        if (!text.startsWith(VERB)) {
            return null;
        }
        List<String> identifiers = new ArrayList<>();
        for (String identifier : text.substring(VERB.length()).split(",", -1)) {
            try {
                identifiers.add(KeyIds.normalize(identifier));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return identifiers.size() <= MAX_IDENTIFIERS ? identifiers : null;
    }
}
