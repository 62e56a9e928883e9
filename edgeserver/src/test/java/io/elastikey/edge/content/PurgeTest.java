package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PurgeTest {
    private static byte[] key(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void aPathMatchesThatTargetOnEveryHostAndItsVariants() {
        Purge p = Purge.parse("/a?x=1", null);
        assertThat(p.matches(key("example.com/a?x=1"))).isTrue();
        assertThat(p.matches(key("other.test:8443/a?x=1"))).isTrue();
        assertThat(p.matches(key("example.com/a?x=2"))).isFalse();
        assertThat(p.matches(key("example.com/a"))).isFalse();
        byte[] variant = VaryIndex.variantKey(key("example.com/a?x=1"),
                List.of(new CachedResponse.Field("accept-language", "fr")), 1024);
        assertThat(p.matches(variant)).isTrue();
    }

    @Test
    void anAbsoluteUrlNamesOneHostNormalisedAsKeysAre() {
        Purge p = Purge.parse("https://Example.COM:443/a", null);
        assertThat(p.matches(key("example.com/a"))).isTrue();
        assertThat(p.matches(key("other.test/a"))).isFalse();
        assertThat(p.exactKey(1024)).isEqualTo(key("example.com/a"));
        String longPath = "/" + "x".repeat(2000);
        assertThat(Purge.parse("https://example.com" + longPath, null).exactKey(1024))
                .as("a hashed key is found by name").hasSize(CacheKeys.HASHED_LENGTH);
    }

    @Test
    void aPrefixMatchesEverythingUnderIt() {
        Purge any = Purge.parse(null, "/static/");
        assertThat(any.matches(key("a.test/static/x.png"))).isTrue();
        assertThat(any.matches(key("b.test/static/"))).isTrue();
        assertThat(any.matches(key("a.test/staticx"))).isFalse();
        Purge one = Purge.parse(null, "http://a.test:80/static/");
        assertThat(one.matches(key("a.test/static/x.png"))).isTrue();
        assertThat(one.matches(key("b.test/static/x.png"))).isFalse();
        assertThat(one.exactKey(1024)).isNull();
        assertThat(any.matches(CacheKeys.hashed(key("a.test/static/x")))).as("hashed keys never match").isFalse();
    }

    @Test
    void unusableParametersAreRefused() {
        assertThatThrownBy(() -> Purge.parse(null, null)).hasMessageContaining("exactly one");
        assertThatThrownBy(() -> Purge.parse("/a", "/b")).hasMessageContaining("exactly one");
        assertThatThrownBy(() -> Purge.parse("a", null)).hasMessageContaining("starts with /");
        assertThatThrownBy(() -> Purge.parse("https:///a", null)).hasMessageContaining("host");
        assertThatThrownBy(() -> Purge.parse(null, "https://host")).hasMessageContaining("path");
    }
}
