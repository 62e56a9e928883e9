// CliException -- a keys command cannot do what was asked; the message says why and what to do.
package io.elastikey.keyserver.cli;

/** Printed as {@code elastikey keys <command>: <message>} with exit status 1; never a stack trace. */
final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CliException(String message) {
        super(message);
    }
}
