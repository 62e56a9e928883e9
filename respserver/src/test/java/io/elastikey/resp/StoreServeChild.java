// StoreServeChild -- main class of a child JVM running `elastikey store serve` exactly as the launcher would.
package io.elastikey.resp;

import io.elastikey.resp.cli.StoreCommand;
import picocli.CommandLine;

/** {@code StoreServeChild serve --data DIR ...}: the {@code store} command's picocli entry point. */
public final class StoreServeChild {
    private StoreServeChild() {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new StoreCommand()).execute(args));
    }
}
