// ProtocolLimits -- the size and syntax limits of the rescale protocol, shared with libscaleup.
package io.elastikey.scaleup.protocol;

import java.nio.charset.StandardCharsets;

/**
 * The limits both ends of PROTOCOLS.md section 3 enforce; libscaleup (C) checks the same numbers, so a request one
 * client refuses the other refuses too.
 *
 * <ul>
 *   <li>a line, request or answer, holds at most {@value #MAX_LINE_BYTES} bytes before its {@code '\n'};</li>
 *   <li>a client name is 1 to {@value #MAX_CLIENT_NAME_BYTES} bytes of {@code [A-Za-z0-9._-]};</li>
 *   <li>a reason is at most {@value #MAX_REASON_BYTES} bytes of UTF-8 and holds no NUL (C cannot carry one);</li>
 *   <li>{@code memory_mb} is an integer from 0 to {@value #MAX_MEMORY_MB} (2^40 MiB).</li>
 * </ul>
 */
public final class ProtocolLimits {
    public static final int MAX_LINE_BYTES = 4096;
    public static final int MAX_CLIENT_NAME_BYTES = 64;
    public static final int MAX_REASON_BYTES = 256;
    public static final long MAX_MEMORY_MB = 1L << 40;

    private ProtocolLimits() {
    }

    /** Why {@code name} is not a client name, or {@code null} if it is one. */
    public static String clientNameProblem(String name) {
        if (name == null || name.isEmpty()) {
            return "client name is empty";
        }
        if (name.length() > MAX_CLIENT_NAME_BYTES) {
            return "client name is longer than " + MAX_CLIENT_NAME_BYTES + " bytes";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return "client name may hold only A-Z a-z 0-9 . _ -";
            }
        }
        return null;
    }

    /** Why {@code reason} cannot be sent, or {@code null} if it can. */
    public static String reasonProblem(String reason) {
        if (reason.indexOf('\0') >= 0) {
            return "reason contains a NUL character";
        }
        if (reason.length() > MAX_REASON_BYTES
                || reason.getBytes(StandardCharsets.UTF_8).length > MAX_REASON_BYTES) {
            return "reason is longer than " + MAX_REASON_BYTES + " bytes";
        }
        return null;
    }

    /** Why {@code memoryMb} is out of range, or {@code null} if it is in range. */
    public static String memoryProblem(long memoryMb) {
        return memoryMb < 0 || memoryMb > MAX_MEMORY_MB ? "memory_mb must be 0.." + MAX_MEMORY_MB : null;
    }
}
