// AuditEventTest -- the event type has no place for key material, inputs or outputs, and cleans the key ID.
package io.elastikey.keyserver.audit;

import static io.elastikey.keyserver.audit.AuditTesting.CLIENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;

import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.SocketAddress;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AuditEventTest {

    /**
     * The audit log can only ever print what this type holds. If this test fails because a component was added,
     * make sure it cannot carry key material, request input or output, then update docs/authorization.md too.
     */
    @Test
    void componentsAreExactlyTheDocumentedTypedFacts() {
        Map<String, Class<?>> components = new LinkedHashMap<>();
        for (RecordComponent component : AuditEvent.class.getRecordComponents()) {
            components.put(component.getName(), component.getType());
        }

        assertThat(components).containsExactly(
                Map.entry("time", Instant.class),
                Map.entry("client", ClientIdentity.class),
                Map.entry("remote", SocketAddress.class),
                Map.entry("protocol", ClientProtocol.class),
                Map.entry("keyId", String.class),
                Map.entry("method", SkiMethod.class),
                Map.entry("error", SkiError.class),
                Map.entry("micros", long.class));
        assertThat(Arrays.stream(AuditEvent.class.getDeclaredFields())
                .filter(field -> !Modifier.isStatic(field.getModifiers())))
                .as("no field beside the components").hasSize(components.size());
    }

    @Test
    void hexKeyIdsAreKeptInLowerCase() {
        AuditEvent event = event("9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08");

        assertThat(event.keyId()).isEqualTo("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "-----BEGIN PRIVATE KEY-----MIGHAgEAMBMGByqGSM49",
        "AAECAwQFBgcICQ==",
        "spki not hex",
        "",
    })
    void anythingButHexInTheKeyIdIsReplaced(String keyId) {
        assertThat(event(keyId).keyId()).isEqualTo(AuditEvent.INVALID_KEY_ID);
    }

    @Test
    void overlongKeyIdIsReplaced() {
        assertThat(event("a".repeat(129)).keyId()).isEqualTo(AuditEvent.INVALID_KEY_ID);
        assertThat(event("a".repeat(128)).keyId()).isEqualTo("a".repeat(128));
    }

    @Test
    void resultIsOkOrTheErrorText() {
        assertThat(event("ab").result()).isEqualTo("ok");
        assertThat(AuditEvent.now(CLIENT, null, ClientProtocol.SKI, "ab", SkiMethod.RSA, SkiError.OVERLOADED, 5).result())
                .isEqualTo("overloaded");
    }

    private static AuditEvent event(String keyId) {
        return new AuditEvent(Instant.now(), CLIENT, null, ClientProtocol.SKI, keyId, SkiMethod.ECDHE, null, 1);
    }
}
