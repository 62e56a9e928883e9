// ClientLimits -- what one named client may hold of the pool.
package io.elastikey.scaleup.agent;

import io.elastikey.scaleup.protocol.ProtocolLimits;

/**
 * A client's share of the pool, in MiB. {@code minMb} is set aside for the client from the start and never lent to
 * another (a reservation: the client gets up to that much whatever the others hold); {@code maxMb} caps its grant.
 */
public record ClientLimits(String name, long minMb, long maxMb) {

    public ClientLimits {
        String problem = ProtocolLimits.clientNameProblem(name);
        if (problem != null) {
            throw new IllegalArgumentException(problem + ": '" + name + "'");
        }
        if (minMb < 0 || maxMb < minMb) {
            throw new IllegalArgumentException("client " + name + ": need 0 <= min <= max, got min " + minMb
                    + " MiB, max " + maxMb + " MiB");
        }
    }

    /** {@code NAME:MIN:MAX} with sizes as {@link Sizes#parseMb} reads them, e.g. {@code keyserver:512m:4g}. */
    public static ClientLimits parse(String spec) {
        String[] parts = spec.split(":", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("a client is NAME:MIN:MAX (like keyserver:512m:4g), not '" + spec + "'");
        }
        return new ClientLimits(parts[0], Sizes.parseMb(parts[1]), Sizes.parseMb(parts[2]));
    }
}
