package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;

import io.netty.channel.DefaultEventLoop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The engine's admission and threading, driven by operations that block on a latch so that
 * "busy" and "queue full" are states the test creates, not races it hopes for. No assertion is
 * about how long anything takes.
 */
class CryptoEngineTest {
    private static final long FAR = TimeUnit.MINUTES.toNanos(5);
    private static final byte[] OUTPUT = {1, 2, 3};

    private final LoadedKey key = TestKeys.loaded(CryptoProvider.jdk(), KeyType.EC_P256);
    private final SkiRequest request =
            SkiRequest.sign(key.keyId(), SignatureScheme.ECDSA_SECP256R1_SHA256, new byte[8]);

    @Test
    void operationsRunOnWorkerThreadsNotTheCaller() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        try (CryptoEngine engine = new CryptoEngine((k, r) -> {
            ranOn.set(Thread.currentThread());
            return OUTPUT;
        }, config(2, 4))) {
            assertThat(engine.submit(key, request, deadline()).get(10, TimeUnit.SECONDS)).isEqualTo(OUTPUT);
        }

        assertThat(ranOn.get()).isNotSameAs(Thread.currentThread());
        assertThat(ranOn.get().getName()).startsWith("elastikey-crypto-");
    }

    @Test
    void aCheapOperationIsAnsweredOnTheSubmittingThreadWithoutAWorker() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        try (CryptoEngine engine = new CryptoEngine(new Cheap(ranOn), config(1, 1))) {
            CompletableFuture<byte[]> future = engine.submit(key, request, deadline());

            assertThat(future).isCompletedWithValue(OUTPUT);
            assertThat(ranOn.get()).isSameAs(Thread.currentThread());
            assertThat(engine.inlinedCount()).isEqualTo(1);
            assertThat(engine.completedCount()).isEqualTo(1);
        }
    }

    @Test
    void withInlineOffACheapOperationStillGoesToAWorker() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        try (CryptoEngine engine = new CryptoEngine(new Cheap(ranOn), config(1, 1).withInline(false))) {
            assertThat(engine.submit(key, request, deadline()).get(10, TimeUnit.SECONDS)).isEqualTo(OUTPUT);

            assertThat(ranOn.get().getName()).startsWith("elastikey-crypto-");
            assertThat(engine.inlinedCount()).isZero();
        }
    }

    @Test
    void aCheapOperationIsDoneInlineOnlyOnTheThreadItsAnswerIsDueOn() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        DefaultEventLoop loop = new DefaultEventLoop();
        try (CryptoEngine engine = new CryptoEngine(new Cheap(ranOn), config(1, 1))) {
            // Submitted from outside the loop its answer is due on: a worker does it, and the loop completes it.
            assertThat(engine.submit(key, request, deadline(), loop).get(10, TimeUnit.SECONDS)).isEqualTo(OUTPUT);
            assertThat(ranOn.get().getName()).startsWith("elastikey-crypto-");
            assertThat(engine.inlinedCount()).isZero();

            // Submitted on that loop: done there, before submit returns.
            Thread loopThread = loop.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
            boolean doneAtReturn = loop.submit(() -> engine.submit(key, request, deadline(), loop).isDone())
                    .get(10, TimeUnit.SECONDS);
            assertThat(doneAtReturn).isTrue();
            assertThat(ranOn.get()).isSameAs(loopThread);
            assertThat(engine.inlinedCount()).isEqualTo(1);
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCheapOperationThatFailsFailsItsFutureAtOnceAndIsCounted() {
        KeyOperation failing = new KeyOperation() {
            @Override
            public byte[] perform(LoadedKey k, SkiRequest r) {
                throw new AssertionError("a worker ran an operation that was cheap");
            }

            @Override
            public byte[] performIfCheap(LoadedKey k, SkiRequest r) {
                throw new SkiException(SkiError.MALFORMED_REQUEST, "the scheme does not fit the key");
            }
        };
        try (CryptoEngine engine = new CryptoEngine(failing, config(1, 1))) {
            CompletableFuture<byte[]> future = engine.submit(key, request, deadline());

            assertThat(future).isCompletedExceptionally();
            assertThat(error(future)).isEqualTo(SkiError.MALFORMED_REQUEST);
            assertThat(engine.failedCount()).isEqualTo(1);
            assertThat(engine.inlinedCount()).isEqualTo(1);
        }
    }

    @Test
    void aFullQueueFailsAtOnceWithOverloaded() throws Exception {
        Gate gate = new Gate();
        try (CryptoEngine engine = new CryptoEngine(gate, config(1, 1))) {
            CompletableFuture<byte[]> running = engine.submit(key, request, deadline());
            gate.awaitStarted();
            CompletableFuture<byte[]> queued = engine.submit(key, request, deadline());

            CompletableFuture<byte[]> refused = engine.submit(key, request, deadline());

            assertThat(refused).isCompletedExceptionally();
            assertThat(error(refused)).isEqualTo(SkiError.OVERLOADED);
            assertThat(engine.rejectedCount()).isEqualTo(1);
            assertThat(engine.queueDepth()).isEqualTo(1);
            assertThat(engine.activeWorkers()).isEqualTo(1);
            gate.open();
            assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo(OUTPUT);
            assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo(OUTPUT);
            assertThat(engine.completedCount()).isEqualTo(2);
        }
    }

    @Test
    void aDeadlinePassedInTheQueueFailsWithOverloadedWithoutRunning() throws Exception {
        Gate gate = new Gate();
        try (CryptoEngine engine = new CryptoEngine(gate, config(1, 4))) {
            CompletableFuture<byte[]> running = engine.submit(key, request, deadline());
            gate.awaitStarted();
            long soon = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            CompletableFuture<byte[]> late = engine.submit(key, request, soon);
            while (System.nanoTime() - soon < 0) {
                Thread.sleep(5);
            }

            gate.open();

            assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo(OUTPUT);
            assertThat(error(late)).isEqualTo(SkiError.OVERLOADED);
            assertThat(gate.runs()).isEqualTo(1);
            assertThat(engine.expiredCount()).isEqualTo(1);
        }
    }

    @Test
    void aDeadlineAlreadyPassedIsRefusedAtSubmission() {
        Gate gate = new Gate();
        try (CryptoEngine engine = new CryptoEngine(gate, config(1, 4))) {
            CompletableFuture<byte[]> late = engine.submit(key, request, System.nanoTime() - 1);

            assertThat(late).isCompletedExceptionally();
            assertThat(error(late)).isEqualTo(SkiError.OVERLOADED);
            assertThat(engine.expiredCount()).isEqualTo(1);
            assertThat(gate.runs()).isZero();
        }
    }

    @Test
    void theFutureCompletesOnTheGivenExecutor() throws Exception {
        ExecutorService eventLoop = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-event-loop"));
        try (CryptoEngine engine = new CryptoEngine((k, r) -> OUTPUT, config(1, 4))) {
            AtomicReference<String> completedOn = new AtomicReference<>();
            Gate gate = new Gate();
            // hold completion until the callback is attached, so it cannot run on this thread
            CompletableFuture<byte[]> future = engine.submit(key, request, deadline(), task -> eventLoop.execute(() -> {
                gate.awaitOpen();
                task.run();
            }));
            CompletableFuture<Void> callback =
                    future.thenAccept(out -> completedOn.set(Thread.currentThread().getName()));
            gate.open();

            callback.get(10, TimeUnit.SECONDS);
            assertThat(completedOn.get()).isEqualTo("test-event-loop");
        } finally {
            eventLoop.shutdownNow();
        }
    }

    @Test
    void operationErrorsKeepTheirKindAndOthersBecomeUnspecified() throws Exception {
        try (CryptoEngine engine = new CryptoEngine((k, r) -> {
            if (r.input().length == 8) {
                throw new SkiException(SkiError.MALFORMED_REQUEST, "test");
            }
            throw new IllegalStateException("boom");
        }, config(1, 4))) {
            SkiRequest other = SkiRequest.sign(key.keyId(), SignatureScheme.ED25519, new byte[9]);

            assertThat(error(engine.submit(key, request, deadline()))).isEqualTo(SkiError.MALFORMED_REQUEST);
            assertThat(error(engine.submit(key, other, deadline()))).isEqualTo(SkiError.UNSPECIFIED_ERROR);
            assertThat(engine.failedCount()).isEqualTo(2);
            assertThat(engine.completedCount()).isEqualTo(2);
        }
    }

    @Test
    void closeDrainsTheQueueThenRefuses() throws Exception {
        Gate gate = new Gate();
        CryptoEngine engine = new CryptoEngine(gate, config(1, 8));
        List<CompletableFuture<byte[]>> futures = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            futures.add(engine.submit(key, request, deadline()));
        }
        gate.awaitStarted();
        gate.open();

        engine.close();

        for (CompletableFuture<byte[]> f : futures) {
            assertThat(f).isCompletedWithValue(OUTPUT);
        }
        assertThat(error(engine.submit(key, request, deadline()))).isEqualTo(SkiError.OVERLOADED);
    }

    @Test
    void closeFailsWhatItCouldNotDrainInTime() {
        Gate gate = new Gate();
        CryptoEngine engine = new CryptoEngine(gate, config(1, 8).withCloseTimeout(Duration.ZERO));
        engine.submit(key, request, deadline());
        gate.awaitStarted();
        CompletableFuture<byte[]> queued = engine.submit(key, request, deadline());

        engine.close();
        gate.open();

        assertThat(error(queued)).isEqualTo(SkiError.OVERLOADED);
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void realOperationsThroughTheEngineVerify(TestProviders providers) throws Exception {
        CryptoOperations operations = new CryptoOperations(providers.get(), new byte[32]);
        LoadedKey p256 = TestKeys.loaded(operations.provider(), KeyType.EC_P256);
        byte[] content = "content".getBytes();
        try (CryptoEngine engine = new CryptoEngine(operations, CryptoEngineConfig.defaults())) {
            byte[] signature = engine.submit(p256, SkiRequest.sign(p256.keyId(), SignatureScheme.ECDSA_SECP256R1_SHA256,
                    content), deadline()).get(10, TimeUnit.SECONDS);

            assertThat(JdkCrypto.verify("SHA256withECDSA", TestKeys.publicKey(p256), content, signature)).isTrue();
        }
    }

    @Test
    void configurationIsValidatedNotClamped() {
        assertThatThrownBy(() -> config(0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("workers");
        assertThatThrownBy(() -> config(1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue capacity");
        assertThatThrownBy(() -> config(CryptoEngineConfig.MAX_WORKERS + 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config(1, 1).withCloseTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(CryptoEngineConfig.defaults().workers()).isEqualTo(Runtime.getRuntime().availableProcessors());
    }

    private static CryptoEngineConfig config(int workers, int queueCapacity) {
        return new CryptoEngineConfig(workers, queueCapacity, Duration.ofSeconds(10));
    }

    private static long deadline() {
        return System.nanoTime() + FAR;
    }

    private static SkiError error(CompletableFuture<byte[]> future) {
        try {
            future.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            assertThat(cause).isInstanceOf(SkiException.class);
            return ((SkiException) cause).error();
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("the future succeeded");
    }

    /** An operation cheap enough to do inline; a worker running it fails the test's assertions on its thread. */
    private record Cheap(AtomicReference<Thread> ranOn) implements KeyOperation {
        @Override
        public byte[] perform(LoadedKey key, SkiRequest request) {
            ranOn.set(Thread.currentThread());
            return OUTPUT;
        }

        @Override
        public byte[] performIfCheap(LoadedKey key, SkiRequest request) {
            return perform(key, request);
        }
    }

    /** An operation that signals when it starts and waits until the test opens the gate (or it is interrupted). */
    private static final class Gate implements KeyOperation {
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch open = new CountDownLatch(1);
        private final AtomicInteger runs = new AtomicInteger();

        @Override
        public byte[] perform(LoadedKey key, SkiRequest request) {
            runs.incrementAndGet();
            started.countDown();
            awaitOpen();
            return OUTPUT;
        }

        void awaitStarted() {
            await(started);
        }

        void awaitOpen() {
            await(open);
        }

        void open() {
            open.countDown();
        }

        int runs() {
            return runs.get();
        }

        private static void await(CountDownLatch latch) {
            try {
                if (!latch.await(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("gave up waiting");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // close() gave up on this operation: just return
            }
        }
    }
}
