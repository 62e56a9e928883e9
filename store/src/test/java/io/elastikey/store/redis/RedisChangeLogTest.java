// RedisChangeLogTest -- change notices through the stream <prefix>changes: replayed after a lost connection.
package io.elastikey.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower ({@link RedisStore#follow}) hears every notice another client announces, in order; one cut off from
 * Redis by a partition ({@link TcpRelay}) or by a Redis restart hears, once it is back, the notices announced
 * meanwhile and is not told it missed any; one whose place in the log is gone is told so, once, and goes on. Real
 * Redis, real sockets.
 */
class RedisChangeLogTest {
    @TempDir
    Path dir;

    @Test
    void aFollowerHearsEveryNoticeInOrderAndTheLogStaysNearItsLength() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir);
             RedisStore writer = RedisStore.open(redis.uri() + "?prefix=ek:");
             RedisStore reader = RedisStore.open(redis.uri() + "?prefix=ek:")) {
            HeardNotices heard = new HeardNotices();
            int count = ChangeLog.LENGTH * 3 / 2;
            try (AutoCloseable following = reader.follow(heard)) {
                assertThat(heard.next(Duration.ofMillis(2500))).as("reads that time out hand on nothing").isNull();
                for (int i = 0; i < count; i++) {
                    writer.announce(b("forget " + i));
                }
                for (int i = 0; i < count; i++) {
                    assertThat(heard.next()).isEqualTo("forget " + i);
                }
            }
            long length = Long.parseLong(redis.cli("XLEN", "ek:changes").strip());
            assertThat(length).as("trimmed to about %d entries", ChangeLog.LENGTH)
                    .isBetween((long) ChangeLog.LENGTH, ChangeLog.LENGTH + 200L);
            writer.announce(b("after the follow closed"));
            assertThat(heard.next(Duration.ofMillis(300))).isNull();
        }
    }

    @Test
    void aFollowerCutOffByAPartitionHearsWhatWasAnnouncedMeanwhileOnceItIsBack() throws Exception {
        try (CutOff cutOff = new CutOff(dir)) {
            cutOff.relay.cut();
            List<String> meanwhile = List.of("forget one", "forget two", "forget three");
            for (String notice : meanwhile) {
                cutOff.writer.announce(b(notice));
            }
            assertThat(cutOff.heard.next(Duration.ofMillis(500))).as("nothing reaches a follower cut off").isNull();

            cutOff.relay.restore();
            List<String> replayed = new ArrayList<>();
            for (int i = 0; i < meanwhile.size(); i++) {
                replayed.add(cutOff.heard.next());
            }
            assertThat(replayed).containsExactlyElementsOf(meanwhile);
            cutOff.writer.announce(b("forget after"));
            assertThat(cutOff.heard.next()).as("no 'missed' before it").isEqualTo("forget after");
        }
    }

    @Test
    void aRedisRestartedWithItsDataCostsAFollowerNothingAndOneRestartedEmptyTellsItItMissedSome() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir, "appendonly yes", "appendfsync always");
             RedisStore writer = RedisStore.open(redis.uri() + "?prefix=ek:&timeout=1s");
             RedisStore reader = RedisStore.open(redis.uri() + "?prefix=ek:&timeout=1s")) {
            HeardNotices heard = new HeardNotices();
            try (AutoCloseable following = reader.follow(heard)) {
                writer.announce(b("forget kept"));
                assertThat(heard.next()).isEqualTo("forget kept");

                redis.restart(); // SIGKILL; the append-only file keeps the log
                announceOnceConnected(writer, "forget after the restart");
                assertThat(heard.next()).as("read on, nothing missed")
                        .isEqualTo("forget after the restart");

                redis.kill();
                try (Stream<Path> files = Files.walk(redis.dir().resolve("appendonlydir"))) {
                    files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
                }
                redis.start(); // empty: the follower's place is gone with everything else
                assertThat(heard.next()).isEqualTo(HeardNotices.MISSED);
                announceOnceConnected(writer, "forget on the new log");
                assertThat(heard.next()).isEqualTo("forget on the new log");
                assertThat(heard.next(Duration.ofMillis(300))).as("told once").isNull();
            }
        }
    }

    @Test
    void aFollowerWhoseLastEntryWasTrimmedAwayIsToldItMissedSomeAndGoesOn() throws Exception {
        try (CutOff cutOff = new CutOff(dir)) {
            cutOff.relay.cut();
            cutOff.writer.announce(b("forget trimmed away"));
            cutOff.redis.cli("XTRIM", "ek:changes", "MAXLEN", "0");
            cutOff.relay.restore();

            assertThat(cutOff.heard.next()).isEqualTo(HeardNotices.MISSED);
            cutOff.writer.announce(b("forget later"));
            assertThat(cutOff.heard.next()).isEqualTo("forget later");
        }
    }

    @Test
    void aFlushAllBetweenTwoNoticesTellsAFollowerItMissedSomeThoughNoCommandFailed() throws Exception {
        try (CutOff f = new CutOff(dir)) { // the relay stays up: nothing but the flush happens to the follower
            f.redis.cli("FLUSHALL");
            assertThat(f.heard.next()).as("the log and every entry are gone").isEqualTo(HeardNotices.MISSED);
            f.writer.announce(b("forget after the flush"));
            assertThat(f.heard.next()).isEqualTo("forget after the flush");
            assertThat(f.heard.next(Duration.ofMillis(1500))).as("told once, not on every quiet read").isNull();
        }
    }

    @Test
    void aFlushAllHiddenByANoticeRightAfterItIsNoticedToo() throws Exception {
        try (CutOff f = new CutOff(dir)) {
            f.redis.cli("FLUSHALL");
            f.writer.announce(b("forget in the new log")); // the follower may read it before it checks
            List<String> untilMissed = new ArrayList<>();
            String h;
            do {
                h = f.heard.next();
                untilMissed.add(h);
            } while (h != null && !h.equals(HeardNotices.MISSED));
            assertThat(untilMissed).as("heard before the flush was noticed").endsWith(HeardNotices.MISSED)
                    .hasSizeLessThanOrEqualTo(2);
            f.writer.announce(b("forget later"));
            assertThat(f.heard.next()).isEqualTo("forget later");
            assertThat(f.heard.next(Duration.ofMillis(1500))).as("told once").isNull();
        }
    }

    @Test
    void theLogIsNoEntryOfTheStore() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir);
             RedisStore prefixed = RedisStore.open(redis.uri() + "?prefix=ek:");
             RedisStore whole = RedisStore.open(redis.uri())) {
            prefixed.put(b("entry"), b("v"));
            prefixed.announce(b("forget x"));
            whole.announce(b("forget y"));
            assertThat(redis.cli("TYPE", "ek:changes").strip()).isEqualTo("stream");

            assertThat(prefixed.size()).isEqualTo(1);
            assertThat(whole.size()).as("ek:entry and ek:changes; its own log left out").isEqualTo(2);
            List<String> visited = new ArrayList<>();
            prefixed.forEach((key, value) -> visited.add(new String(key, StandardCharsets.UTF_8)));
            assertThat(visited).containsExactly("entry");
            assertThatThrownBy(() -> prefixed.put(b("changes"), b("v"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'ek:changes' is the store's change log");
            assertThatThrownBy(() -> whole.get(b("changes"))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** Announces once the store is connected again after a restart (its first commands may be refused). */
    private static void announceOnceConnected(RedisStore store, String notice) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                store.announce(b(notice));
                return;
            } catch (StoreException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * A Redis, a writer connected to it directly and a follower connected through a {@link TcpRelay} the test can
     * cut, the follower already hearing the writer.
     */
    private static final class CutOff implements AutoCloseable {
        final RedisServer redis;
        final TcpRelay relay;
        final RedisStore writer;
        final RedisStore reader;
        final HeardNotices heard = new HeardNotices();
        final AutoCloseable following;

        CutOff(Path dir) throws Exception {
            redis = RedisServers.standalone(dir);
            relay = new TcpRelay(redis.port());
            writer = RedisStore.open(redis.uri() + "?prefix=ek:");
            reader = RedisStore.open("redis://127.0.0.1:" + relay.port() + "?prefix=ek:&timeout=1s");
            following = reader.follow(heard);
            writer.announce(b("forget seen"));
            assertThat(heard.next()).isEqualTo("forget seen");
        }

        @Override
        public void close() throws Exception {
            following.close();
            reader.close();
            writer.close();
            relay.close();
            redis.close();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
