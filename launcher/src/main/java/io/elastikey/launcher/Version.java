// Version -- what `elastikey --version` prints.
package io.elastikey.launcher;

import picocli.CommandLine;

/** Reads the version Maven wrote into the jar manifest; "development" when run from classes. */
final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Main.class.getPackage().getImplementationVersion();
        return new String[] {"elastikey " + (v == null ? "development build" : v),
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
    }
}
