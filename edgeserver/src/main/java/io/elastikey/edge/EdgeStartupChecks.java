// EdgeStartupChecks -- the edge's paths checked before anything starts, each failure naming its setting.
package io.elastikey.edge;

import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.protocol.config.SettingPaths;

/**
 * Runs first in {@link EdgeServer#start}: the key-server client identity and trust anchor must be readable (unless
 * the keys are local, a benchmark-only mode), the certificate directory listable, and the content cache's directory
 * writable. A failure is one line naming the setting, the path and the reason, before a port is bound.
 */
final class EdgeStartupChecks {
    private EdgeStartupChecks() {
    }

    static void run(EdgeConfig config, boolean keyServerPool) {
        if (keyServerPool) {
            SettingPaths.requireReadableFile("keyservers.ca", config.keyServerCa());
            SettingPaths.requireReadableFile("keyservers.certificate", config.clientCertificate());
            SettingPaths.requireReadableFile("keyservers.key", config.clientKey());
        }
        SettingPaths.requireReadableDirectory("certificates", config.certificates());
        if (config.cacheEnabled()) {
            SettingPaths.requireWritableDirectory("cache.dir", config.cacheDir(), "the content cache's directory");
        }
    }
}
