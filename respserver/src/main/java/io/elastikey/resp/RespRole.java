// RespRole -- what a RESP user may do: read, read and write, or everything including administration.
package io.elastikey.resp;

import java.util.Locale;

/**
 * The role of a {@link RespUsers user}, in the spirit of Redis ACL categories but fixed: a role
 * is a set of {@link Command.Access} classes. {@code admin} may resize the store's memory tier
 * ({@code ELASTIC.RESIZE}), which changes how much of the machine's memory the process takes;
 * data access alone never can.
 */
public enum RespRole {
    /** Every command, administrative ones included. */
    ADMIN,
    /** Reads and writes ({@code GET}, {@code SET}, {@code DEL}, ...), nothing administrative. */
    READWRITE,
    /** Reads only ({@code GET}, {@code MGET}, {@code EXISTS}, {@code INFO}, ...). */
    READONLY;

    /** Whether this role may run commands of class {@code access}. */
    boolean allows(Command.Access access) {
        return switch (access) {
            case CONNECTION, READ -> true;
            case WRITE -> this != READONLY;
            case ADMIN -> this == ADMIN;
        };
    }

    /** The role spelled {@code admin}, {@code readwrite} or {@code readonly}, any case. */
    public static RespRole parse(String name) {
        for (RespRole r : values()) {
            if (r.name().equalsIgnoreCase(name.trim())) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown role '" + name + "' (expected admin, readwrite or readonly)");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
