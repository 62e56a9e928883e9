// RedisChangeLogTest -- change notices through the stream <prefix>changes: replayed after a lost connection.
package io.elastikey.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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
    private static final String MISSED = "missed";

    @TempDir
    Path dir;

    @Test
    void aFollowerHearsEveryNoticeInOrderAndTheLogStaysNearItsLength() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir);
             RedisStore writer = RedisStore.open(redis.uri() + "?prefix=ek:");
             RedisStore reader = RedisStore.open(redis.uri() + "?prefix=ek:")) {
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            int count = ChangeLog.LENGTH * 3 / 2;
            try (AutoCloseable following = reader.follow(recorder(heard))) {
                assertThat(heard.poll(2500, TimeUnit.MILLISECONDS)).as("reads that time out hand on nothing").isNull();
                for (int i = 0; i < count; i++) {
                    writer.announce(b("forget " + i));
                }
                for (int i = 0; i < count; i++) {
                    assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("forget " + i);
                }
            }
            long length = Long.parseLong(redis.cli("XLEN", "ek:changes").strip());
            assertThat(length).as("trimmed to about %d entries", ChangeLog.LENGTH)
                    .isBetween((long) ChangeLog.LENGTH, ChangeLog.LENGTH + 200L);
            writer.announce(b("after the follow closed"));
            assertThat(heard.poll(300, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    @Test
    void aFollowerCutOffByAPartitionHearsWhatWasAnnouncedMeanwhileOnceItIsBack() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir);
             TcpRelay relay = new TcpRelay(redis.port());
             RedisStore writer = RedisStore.open(redis.uri() + "?prefix=ek:");
             RedisStore reader = RedisStore.open("redis://127.0.0.1:" + relay.port() + "?prefix=ek:&timeout=1s")) {
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            try (AutoCloseable following = reader.follow(recorder(heard))) {
                writer.announce(b("forget before"));
                assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("forget before");

                relay.cut();
                List<String> meanwhile = List.of("forget one", "forget two", "forget three");
                for (String notice : meanwhile) {
                    writer.announce(b(notice));
                }
                assertThat(heard.poll(500, TimeUnit.MILLISECONDS)).as("nothing reaches a follower cut off").isNull();

                relay.restore();
                List<String> replayed = new ArrayList<>();
                for (int i = 0; i < meanwhile.size(); i++) {
                    replayed.add(heard.poll(20, TimeUnit.SECONDS));
                }
                assertThat(replayed).containsExactlyElementsOf(meanwhile);
                writer.announce(b("forget after"));
                assertThat(heard.poll(20, TimeUnit.SECONDS)).as("no 'missed' before it").isEqualTo("forget after");
            }
        }
    }

    @Test
    void aRedisRestartedWithItsDataCostsAFollowerNothingAndOneRestartedEmptyTellsItItMissedSome() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir, "appendonly yes", "appendfsync always");
             RedisStore writer = RedisStore.open(redis.uri() + "?prefix=ek:&timeout=1s");
             RedisStore reader = RedisStore.open(redis.uri() + "?prefix=ek:&timeout=1s")) {
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            try (AutoCloseable following = reader.follow(recorder(heard))) {
                writer.announce(b("forget kept"));
                assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("forget kept");

                redis.restart(); // SIGKILL; the append-only file keeps the log
                announceOnceConnected(writer, "forget after the restart");
                assertThat(heard.poll(20, TimeUnit.SECONDS)).as("read on, nothing missed")
                        .isEqualTo("forget after the restart");

                redis.kill();
                try (Stream<Path> files = Files.walk(redis.dir().resolve("appendonlydir"))) {
                    files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
                }
                redis.start(); // empty: the follower's place is gone with everything else
                assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo(MISSED);
                announceOnceConnected(writer, "forget on the new log");
                assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("forget on the new log");
                assertThat(heard.poll(300, TimeUnit.MILLISECONDS)).as("told once").isNull();
            }
        }
    }

    @Test
    void aFollowerWhoseLastEntryWasTrimmedAwayIsToldItMissedSomeAndGoesOn() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir);
             TcpRelay relay = new TcpRelay(redis.port());
             RedisStore writer = RedisStore.open(redis.uri() + "?prefix=ek:");
             RedisStore reader = RedisStore.open("redis://127.0.0.1:" + relay.port() + "?prefix=ek:&timeout=1s")) {
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            try (AutoCloseable following = reader.follow(recorder(heard))) {
                writer.announce(b("forget seen"));
                assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("forget seen");

                relay.cut();
                writer.announce(b("forget trimmed away"));
                redis.cli("XTRIM", "ek:changes", "MAXLEN", "0");
                relay.restore();

                assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo(MISSED);
                writer.announce(b("forget later"));
                assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("forget later");
            }
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

    private static KeyValueStore.ChangeListener recorder(BlockingQueue<String> heard) {
        return new KeyValueStore.ChangeListener() {
            @Override
            public void announced(byte[] notice) {
                heard.add(new String(notice, StandardCharsets.UTF_8));
            }

            @Override
            public void missedSome() {
                heard.add(MISSED);
            }
        };
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
