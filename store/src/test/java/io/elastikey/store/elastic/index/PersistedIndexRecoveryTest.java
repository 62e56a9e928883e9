// PersistedIndexRecoveryTest -- an index reopened after a kill says what Chronicle's recovery repaired, once.
package io.elastikey.store.elastic.index;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A killed process leaves the index file as it was mid-use; the store reopens it with Chronicle's recovery. These
 * tests hold that the entries come back and that the log gets one line from the store about it, and no ERROR from
 * Chronicle, which would read as damage to an operator looking at the log after a kill.
 */
class PersistedIndexRecoveryTest {

    @TempDir
    Path dir;

    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @BeforeEach
    void capture() {
        events.start();
        root.addAppender(events);
    }

    @AfterEach
    void release() {
        root.detachAppender(events);
    }

    @Test
    void aCopyTakenWhileTheIndexWasOpenComesBackWithOneLineAboutTheRecovery() throws Exception {
        Path live = dir.resolve("live.cm");
        Path killed = dir.resolve("killed.cm");
        try (PersistedIndex index = PersistedIndex.open(live, 10_000, 8, false)) {
            for (int i = 0; i < 3_000; i++) {
                index.put(key(i), 1, i, 100 + i);
            }
            Files.copy(live, killed); // what a kill leaves: the file as it is while the map is open
        }
        events.list.clear();

        try (PersistedIndex index = PersistedIndex.open(killed, 10_000, 8, true)) {
            Location at = new Location();
            for (int i = 0; i < 3_000; i++) {
                assertThat(index.lookup(key(i), at)).as("key %d", i).isTrue();
                assertThat(at.sameAs(1, i)).isTrue();
            }
        }
        List<ILoggingEvent> ours = events.list.stream()
                .filter(e -> e.getLoggerName().equals(PersistedIndex.class.getName())).toList();
        assertThat(ours).hasSize(1);
        assertThat(ours.get(0).getFormattedMessage()).contains("reopened after an unclean shutdown");
        assertThat(events.list).noneMatch(e -> e.getLevel() == Level.ERROR);
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
    }
}
