// ScaleUpClientFactory -- makes the ScaleUpClient the key server's memory governor talks through.
package io.elastikey.keyserver.governor;

import io.elastikey.scaleup.ScaleUpClient;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Builds a client for the scale-up agent from the {@code scaleup.*} settings. The server uses
 * {@link ScaleUpClients#discover()}; tests hand in their own.
 */
@FunctionalInterface
public interface ScaleUpClientFactory {

    /**
     * @param socket the agent's socket, or {@code null} for the implementation's default
     * @param clientName the name the agent keeps the grant under
     * @param timeout the longest one call may take
     * @throws IllegalStateException when no client can be made
     */
    ScaleUpClient create(Path socket, String clientName, Duration timeout);
}
