// PolicyFormatException -- a policy file that cannot be loaded, with every problem and the line it is on.
package io.elastikey.keyserver.authz;

import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when a policy file has errors. All of them are reported at once, each with its line number, in the
 * {@code file:line: message} form editors and terminals turn into links; an operator fixes the file in one pass
 * instead of one restart per mistake. The server does not start on a policy that throws this.
 */
public final class PolicyFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /** One problem: the 1-based line it is on and what is wrong there. */
    public record Problem(int line, String message) {
    }

    private final String source;
    private final transient List<Problem> problems;

    PolicyFormatException(String source, List<Problem> problems) {
        super(format(source, problems));
        this.source = source;
        this.problems = List.copyOf(problems);
    }

    /** The file (or other source) the policy came from, as given to the loader. */
    public String source() {
        return source;
    }

    /** Every problem found, in line order. Never empty. */
    public List<Problem> problems() {
        return problems;
    }

    private static String format(String source, List<Problem> problems) {
        String lines = problems.stream()
                .map(problem -> source + ":" + problem.line() + ": " + problem.message())
                .collect(Collectors.joining("\n"));
        return problems.size() == 1 ? lines
                : "invalid access policy " + source + " (" + problems.size() + " errors):\n" + lines;
    }
}
