// SizesTest -- the one reading of sizes: digits and a binary unit, nothing else, no overflow.
package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SizesTest {
    @Test
    void digitsWithAnOptionalBinaryUnit() {
        assertThat(Sizes.parse("0")).isZero();
        assertThat(Sizes.parse("1048576")).isEqualTo(1L << 20);
        assertThat(Sizes.parse("64k")).isEqualTo(64L << 10);
        assertThat(Sizes.parse("512M")).isEqualTo(512L << 20);
        assertThat(Sizes.parse("1g")).isEqualTo(1L << 30);
        assertThat(Sizes.parse("2t")).isEqualTo(2L << 40);
        assertThat(Sizes.parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(Sizes.parse("8388607t")).isEqualTo(8388607L << 40);
    }

    @Test
    void anythingElseIsNotASize() {
        for (String bad : new String[] {"", "k", "-1", "+1", " 1", "1 ", "1.5g", "1e9", "0x10", "2^63", "1kb",
                "9223372036854775808", "99999999999999999999", "8388608t", "9223372036854775807k"}) {
            assertThat(Sizes.parse(bad)).as(bad).isEqualTo(-1);
        }
        assertThatThrownBy(() -> Sizes.parse("--memory", "lots")).hasMessage(
                "--memory: not a size: 'lots' (expected e.g. 512m or 1g)");
    }
}
