// Rule -- one "rule" block of a policy file: which clients it picks, and what it allows them.
package io.elastikey.keyserver.authz;

import java.util.List;

/**
 * A named rule as parsed: a client matches it when any one of its selectors matches, and then receives all of its
 * grants. Immutable.
 *
 * @param name      the name after {@code rule}, unique in the file
 * @param line      the line of the {@code rule} keyword, for messages
 * @param selectors at least one
 * @param grants    not empty
 */
record Rule(String name, int line, List<ClientSelector> selectors, Grants grants) {
    Rule {
        selectors = List.copyOf(selectors);
    }
}
