// ChangeNoticeTest -- the notice a key change announces on a shared store, and what a follower refuses to act on.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

class ChangeNoticeTest {
    static final String KEY_ID = "ab".repeat(32);
    static final String ALIAS = "cd".repeat(20);

    @Test
    void aNoticeNamesEveryIdentifierAndReadsBackInNormalForm() {
        byte[] notice = ChangeNotice.encode(List.of(KEY_ID, ALIAS)).get(0);

        assertThat(new String(notice, StandardCharsets.US_ASCII)).isEqualTo("forget " + KEY_ID + "," + ALIAS);
        assertThat(ChangeNotice.decode(notice)).containsExactly(KEY_ID, ALIAS);
        assertThat(ChangeNotice.decode(("forget " + KEY_ID.toUpperCase()).getBytes(StandardCharsets.US_ASCII)))
                .containsExactly(KEY_ID);
    }

    @Test
    void manyIdentifiersGoOutAsSeveralNoticesEachOfWhichIsHeard() {
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 2 * ChangeNotice.MAX_IDENTIFIERS + 5; i++) {
            many.add(String.format("%064x", i));
        }

        List<byte[]> notices = ChangeNotice.encode(many);

        assertThat(notices).hasSize(3);
        List<String> heard = new ArrayList<>();
        notices.forEach(notice -> heard.addAll(ChangeNotice.decode(notice)));
        assertThat(heard).isEqualTo(many);
    }

    @Test
    void anythingElseOnTheChannelIsNotActedOn() {
        for (String text : List.of("", "forget ", "forget " + KEY_ID + ",", "forget " + KEY_ID + ",xyz",
                "remember " + KEY_ID, "forget  " + KEY_ID, "FORGET " + KEY_ID, "forget " + KEY_ID + ";flushall")) {
            assertThat(ChangeNotice.decode(text.getBytes(StandardCharsets.UTF_8))).as(text).isNull();
        }
        String tooMany = "forget " + String.join(",", Collections.nCopies(ChangeNotice.MAX_IDENTIFIERS + 1, ALIAS));
        assertThat(ChangeNotice.decode(tooMany.getBytes(StandardCharsets.US_ASCII))).isNull();
        String atTheBound = "forget " + String.join(",", Collections.nCopies(ChangeNotice.MAX_IDENTIFIERS, KEY_ID));
        assertThat(ChangeNotice.decode(atTheBound.getBytes(StandardCharsets.US_ASCII)))
                .hasSize(ChangeNotice.MAX_IDENTIFIERS);
    }
}
