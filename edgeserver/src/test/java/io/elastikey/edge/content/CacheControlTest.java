package io.elastikey.edge.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CacheControlTest {

    @Test
    void maxAgeGivesTheLifetime() {
        CacheControl cc = CacheControl.parse("max-age=60");
        assertThat(cc.maxAge()).isEqualTo(60);
        assertThat(cc.lifetimeSeconds()).isEqualTo(60);
        assertThat(cc.allowsSharedStorage()).isTrue();
    }

    @Test
    void sMaxAgeWinsOverMaxAgeForASharedCache() {
        CacheControl cc = CacheControl.parse("max-age=10, s-maxage=600");
        assertThat(cc.lifetimeSeconds()).isEqualTo(600);
        assertThat(CacheControl.parse("s-maxage=0, max-age=60").lifetimeSeconds()).isZero();
    }

    @Test
    void staleDirectivesGiveTheirWindowsUnlessMustRevalidate() {
        CacheControl cc = CacheControl.parse("max-age=1, stale-while-revalidate=30, stale-if-error=\"600\"");
        assertThat(cc.staleWhileRevalidateMillis()).isEqualTo(30_000);
        assertThat(cc.staleIfErrorMillis()).isEqualTo(600_000);
        assertThat(cc.allowsSharedStorage()).isTrue();
        CacheControl strict = CacheControl.parse("max-age=1, stale-while-revalidate=30, stale-if-error=60, "
                + "proxy-revalidate");
        assertThat(strict.staleWhileRevalidateMillis()).isZero();
        assertThat(strict.staleIfErrorMillis()).isZero();
        assertThat(CacheControl.parse("max-age=1").staleIfErrorMillis()).isZero();
        assertThat(CacheControl.parse("stale-if-error=1, stale-if-error=2").malformed()).isTrue();
        assertThat(CacheControl.parse("stale-while-revalidate").malformed()).isTrue();
    }

    @Test
    void directiveNamesAreCaseInsensitive() {
        CacheControl cc = CacheControl.parse("Max-Age=30, NO-STORE");
        assertThat(cc.maxAge()).isEqualTo(30);
        assertThat(cc.noStore()).isTrue();
        assertThat(cc.allowsSharedStorage()).isFalse();
    }

    @Test
    void quotedValuesAreAccepted() {
        assertThat(CacheControl.parse("max-age=\"60\"").maxAge()).isEqualTo(60);
        assertThat(CacheControl.parse("s-maxage=\"0\"").sMaxAge()).isZero();
    }

    @Test
    void noStorePrivateAndNoCacheForbidStorage() {
        assertThat(CacheControl.parse("no-store, max-age=60").allowsSharedStorage()).isFalse();
        assertThat(CacheControl.parse("private, max-age=60").allowsSharedStorage()).isFalse();
        assertThat(CacheControl.parse("no-cache, max-age=60").allowsSharedStorage()).isFalse();
    }

    @Test
    void privateAndNoCacheWithFieldNamesStillForbidStorage() {
        CacheControl cc = CacheControl.parse("private=\"set-cookie, x-user\", max-age=60");
        assertThat(cc.malformed()).isFalse();
        assertThat(cc.isPrivate()).isTrue();
        assertThat(CacheControl.parse("no-cache=x-user, max-age=60").noCache()).isTrue();
    }

    @Test
    void absentOrEmptyHeaderIsNone() {
        assertThat(CacheControl.parse((CharSequence) null)).isEqualTo(CacheControl.NONE);
        assertThat(CacheControl.parse("")).isEqualTo(CacheControl.NONE);
        assertThat(CacheControl.parse(" , ,")).isEqualTo(CacheControl.NONE);
        assertThat(CacheControl.NONE.lifetimeSeconds()).isEqualTo(-1);
    }

    @Test
    void unknownDirectivesAreReadPastEvenWithQuotedCommas() {
        CacheControl cc = CacheControl.parse("public, immutable, stale-while-revalidate=30, x-ext=\"a, b\\\"c\", "
                + "must-revalidate, max-age=5");
        assertThat(cc.malformed()).isFalse();
        assertThat(cc.maxAge()).isEqualTo(5);
        assertThat(cc.allowsSharedStorage()).isTrue();
    }

    @Test
    void emptyListElementsAndOptionalWhitespaceAreAllowed() {
        assertThat(CacheControl.parse(" ,\tmax-age=5 ,, public ,").maxAge()).isEqualTo(5);
    }

    @Test
    void repeatedHeaderLinesCombineAsOneList() {
        CacheControl cc = CacheControl.parse(List.of("max-age=60", "no-store"));
        assertThat(cc.maxAge()).isEqualTo(60);
        assertThat(cc.noStore()).isTrue();
        assertThat(CacheControl.parse(List.of("max-age=60", "max-age=30")).malformed()).isTrue();
    }

    @Test
    void hugeValuesSaturateAtTwoToThe31() {
        assertThat(CacheControl.parse("max-age=99999999999999999999999999999").maxAge())
                .isEqualTo(CacheControl.MAX_DELTA_SECONDS);
    }

    @Test
    void zeroLifetimeIsNotMalformed() {
        CacheControl cc = CacheControl.parse("max-age=0");
        assertThat(cc.malformed()).isFalse();
        assertThat(cc.lifetimeSeconds()).isZero();
    }

    @Test
    void aLongHostileHeaderStillParses() {
        String hostile = ",".repeat(100_000) + "max-age=7" + " ".repeat(100_000);
        assertThat(CacheControl.parse(hostile).maxAge()).isEqualTo(7);
        assertThat(CacheControl.parse("x".repeat(200_000) + "=").malformed()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "max-age=", "max-age=-1", "max-age=+5", "max-age=1e3", "max-age=0x10", "max-age=60.5", "max-age=6 0",
        "max-age = 60", "max-age =60", "max-age=\"60", "max-age=60, max-age=60", "s-maxage=1, s-maxage=2",
        "=60", "max-age==60", "max-age=60;", "max-age=\uFF16\uFF10", "max\u0000age=1", "max-age=\"6\n0\"",
        "max-age=\"60\"x", "no-store\"", "max-age=60 public", "\u00e9tag=1", "max-age=\"\\"
    })
    void malformedHeadersForbidStorage(String value) {
        CacheControl cc = CacheControl.parse(value);
        assertThat(cc.malformed()).as(value).isTrue();
        assertThat(cc.allowsSharedStorage()).isFalse();
    }
}
