package io.elastikey.resp;

import static io.elastikey.resp.RawClient.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pipelined commands are answered in request order, whatever their mix and however they are batched. */
class RespPipeliningTest {
    @TempDir
    Path dir;

    @Test
    void thousandMixedCommandsAnsweredInOrder() throws Exception {
        try (RespFixture f = new RespFixture(dir); RawClient c = f.client()) {
            SplittableRandom random = new SplittableRandom(7);
            Map<String, String> model = new HashMap<>();
            List<Object> expected = new ArrayList<>();
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            for (int i = 0; i < 1000; i++) {
                String key = "p:" + random.nextInt(50);
                int op = random.nextInt(10);
                if (op < 4) {
                    String value = "v" + i;
                    wire.writeBytes(RawClient.encode("SET", key, value));
                    model.put(key, value);
                    expected.add("OK");
                } else if (op < 9) {
                    wire.writeBytes(RawClient.encode("GET", key));
                    expected.add(model.get(key));
                } else {
                    wire.writeBytes(RawClient.encode("DEL", key));
                    expected.add(model.remove(key) != null ? 1L : 0L);
                }
            }
            c.send(wire.toByteArray()); // one write: the server sees it as a few large reads
            for (int i = 0; i < expected.size(); i++) {
                Object reply = c.read();
                Object want = expected.get(i);
                if (reply instanceof byte[]) {
                    reply = text(reply);
                }
                assertThat(reply).as("reply %d", i).isEqualTo(want);
            }
        }
    }

    @Test
    void manyConnectionsPipeliningAtOnceEachGetTheirOwnOrder() throws Exception {
        try (RespFixture f = new RespFixture(dir)) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 8; t++) {
                int id = t;
                Thread thread = new Thread(() -> {
                    try (RawClient c = f.client()) {
                        ByteArrayOutputStream wire = new ByteArrayOutputStream();
                        for (int i = 0; i < 300; i++) {
                            wire.writeBytes(RawClient.encode("SET", "c" + id + ":" + i, "v" + i));
                            wire.writeBytes(RawClient.encode("GET", "c" + id + ":" + i));
                        }
                        c.send(wire.toByteArray());
                        for (int i = 0; i < 300; i++) {
                            assertThat(c.read()).isEqualTo("OK");
                            assertThat(text(c.read())).isEqualTo("v" + i);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failures).isEmpty();
        }
    }
}
