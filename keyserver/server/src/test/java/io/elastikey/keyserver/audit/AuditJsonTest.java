// AuditJsonTest -- an audit line is one JSON object with exactly the documented fields, whatever the event holds.
package io.elastikey.keyserver.audit;

import static io.elastikey.keyserver.audit.AuditTesting.CLIENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.keyserver.keys.KeyChange;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class AuditJsonTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant TIME = Instant.parse("2026-11-21T15:49:27.123456789Z");
    private static final String KEY_ID = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    @Test
    void lineHasExactlyTheDocumentedFieldsInOrder() throws Exception {
        AuditEvent event = new AuditEvent(TIME, CLIENT,
                new InetSocketAddress(InetAddress.getByName("192.0.2.7"), 50412), ClientProtocol.KEYLESS, KEY_ID,
                SkiMethod.RSA_RAW, null,
                412);

        String line = AuditJson.format(event);

        assertThat(line).doesNotContain("\n");
        JsonNode json = JSON.readTree(line);
        assertThat(fieldNames(json)).containsExactly("time", "client", "remote", "protocol", "key", "method", "result",
                "micros")
                .isEqualTo(AuditJson.FIELDS);
        assertThat(json.get("time").asText()).isEqualTo("2026-11-21T15:49:27.123456Z");
        assertThat(json.get("client").asText()).isEqualTo(CLIENT.shortName()).startsWith("edge-eu-1/");
        assertThat(json.get("remote").asText()).isEqualTo("192.0.2.7:50412");
        assertThat(json.get("key").asText()).isEqualTo(KEY_ID);
        assertThat(json.get("protocol").asText()).isEqualTo("keyless");
        assertThat(json.get("method").asText()).isEqualTo("RSA-RAW");
        assertThat(json.get("result").asText()).isEqualTo("ok");
        assertThat(json.get("micros").isIntegralNumber()).isTrue();
        assertThat(json.get("micros").asLong()).isEqualTo(412);
    }

    @Test
    void aKeyChangeLineHasTheSameFieldsNamingTheUserTheSocketAndTheChange() throws Exception {
        KeyChangeEvent event = new KeyChangeEvent(TIME, "ops\"admin", Path.of("/var/lib/elastikey/keyserver.sock"),
                KeyChange.REMOVED, KEY_ID.toUpperCase(Locale.ROOT));

        JsonNode json = JSON.readTree(AuditJson.format(event));

        assertThat(fieldNames(json)).isEqualTo(AuditJson.FIELDS);
        assertThat(json.get("time").asText()).isEqualTo("2026-11-21T15:49:27.123456Z");
        assertThat(json.get("client").asText()).isEqualTo("user ops\"admin");
        assertThat(json.get("remote").asText()).isEqualTo("/var/lib/elastikey/keyserver.sock");
        assertThat(json.get("protocol").asText()).isEqualTo("keys");
        assertThat(json.get("key").asText()).isEqualTo(KEY_ID);
        assertThat(json.get("method").asText()).isEqualTo("REMOVE-KEY");
        assertThat(json.get("result").asText()).isEqualTo("ok");
        assertThat(json.get("micros").isNull()).isTrue();
        assertThat(new KeyChangeEvent(TIME, "ops", null, KeyChange.ADDED, "not a key id").keyId())
                .isEqualTo(AuditEvent.INVALID_KEY_ID);
    }

    @Test
    void errorsAreLoggedWithTheTextTheClientReceived() throws Exception {
        AuditEvent event = new AuditEvent(TIME, CLIENT, null, ClientProtocol.SKI, KEY_ID, SkiMethod.SIGN, SkiError.REQUEST_DENIED, 9);

        assertThat(JSON.readTree(AuditJson.format(event)).get("result").asText()).isEqualTo("request denied");
    }

    @Test
    void unknownValuesAreNullsAndTheFieldsStayTheSame() throws Exception {
        AuditEvent event = new AuditEvent(TIME, null, null, ClientProtocol.SKI, null, null, SkiError.MALFORMED_REQUEST, 3);

        JsonNode json = JSON.readTree(AuditJson.format(event));

        assertThat(fieldNames(json)).isEqualTo(AuditJson.FIELDS);
        for (String field : List.of("client", "remote", "key", "method")) {
            assertThat(json.get(field).isNull()).as(field).isTrue();
        }
        assertThat(json.get("result").asText()).isEqualTo("malformed request");
    }

    @Test
    void ipv6PeersAreBracketedAndUnresolvedAddressesAreNotLookedUp() throws Exception {
        AuditEvent v6 = new AuditEvent(TIME, CLIENT, new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 443),
                ClientProtocol.SKI, null, null, null, 1);
        AuditEvent unresolved = new AuditEvent(TIME, CLIENT, InetSocketAddress.createUnresolved("edge.invalid", 443),
                ClientProtocol.SKI, null, null, null, 1);

        assertThat(JSON.readTree(AuditJson.format(v6)).get("remote").asText())
                .isEqualTo("[2001:db8:0:0:0:0:0:1]:443");
        assertThat(JSON.readTree(AuditJson.format(unresolved)).get("remote").asText()).isEqualTo("edge.invalid:443");
    }

    @Test
    void everyControlCharacterAndNonAsciiNameSurvivesAsTheSameText() throws Exception {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            all.append(c);
        }
        all.append("\"\\/ é 鍵 \u2028 \uD83D\uDD11");
        StringBuilder line = new StringBuilder();

        AuditJson.appendString(line, all.toString());

        assertThat(line.toString()).doesNotContain("\n").doesNotContain("\r");
        assertThat(JSON.readTree("{\"v\":" + line + "}").get("v").asText()).isEqualTo(all.toString());
    }

    @Test
    void theTimeHasMicrosecondsAndIsRightAcrossSeconds() throws Exception {
        for (Instant time : List.of(Instant.parse("2026-11-21T15:49:27.000001Z"),
                Instant.parse("2026-11-21T15:49:27.999999Z"), Instant.parse("2026-11-21T15:49:28Z"),
                Instant.parse("1999-12-31T23:59:59.5Z"))) {
            AuditEvent event = new AuditEvent(time, null, null, ClientProtocol.SKI, null, null, null, 1);
            assertThat(JSON.readTree(AuditJson.format(event)).get("time").asText())
                    .isEqualTo(java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
                            .withZone(java.time.ZoneOffset.UTC).format(time));
        }
    }

    @Test
    void aHostileCommonNameCannotBreakTheLine() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("CA", KeyType.EC_P256, Validity.days(1));
        ClientIdentity hostile = ClientIdentity.of(ca.issueClient("x\",\"result\":\"ok\\", List.of(),
                KeyType.EC_P256, Validity.days(1)).certificate());
        AuditEvent event = new AuditEvent(TIME, hostile, null, ClientProtocol.SKI, null, null, SkiError.REQUEST_DENIED, 1);

        String line = AuditJson.format(event);

        JsonNode json = JSON.readTree(line);
        assertThat(fieldNames(json)).isEqualTo(AuditJson.FIELDS);
        assertThat(json.get("client").asText()).startsWith("x\",\"result\":\"ok\\/");
        assertThat(json.get("result").asText()).isEqualTo("request denied");
    }

    private static List<String> fieldNames(JsonNode json) {
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
