// RecordingListener -- a pool listener that keeps what it was told, for tests to assert on.
package io.elastikey.edge.keyservers;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.elastikey.protocol.ski.SkiMethod;

/** Thread-safe: the pool calls it from event loops while the test thread reads. */
final class RecordingListener implements KeyServerPoolListener {
    /** One event as the pool reported it; {@code endpoint} is null for an operation refused outright. */
    record Event(String kind, KeyServerEndpoint endpoint, Throwable failure, String detail) {
    }

    private final Queue<Event> events = new ConcurrentLinkedQueue<>();

    @Override
    public void onSuccess(KeyServerEndpoint endpoint, SkiMethod method, long nanos) {
        events.add(new Event("success", endpoint, null, method.wireName()));
    }

    @Override
    public void onFailure(KeyServerEndpoint endpoint, SkiMethod method, Throwable failure, long nanos) {
        events.add(new Event("failure", endpoint, failure, method.wireName()));
    }

    @Override
    public void onRetry(KeyServerEndpoint endpoint, SkiMethod method, Throwable failure) {
        events.add(new Event("retry", endpoint, failure, method.wireName()));
    }

    @Override
    public void onStateChange(KeyServerEndpoint endpoint, BreakerState from, BreakerState to) {
        events.add(new Event("state", endpoint, null, from + "->" + to));
    }

    List<Event> events(String kind) {
        return events.stream().filter(event -> event.kind().equals(kind)).collect(Collectors.toList());
    }

    long count(String kind) {
        return events.stream().filter(event -> event.kind().equals(kind)).count();
    }

    /** The breaker changes of {@code endpoint}, as {@code FROM->TO}, in order. */
    List<String> transitions(KeyServerEndpoint endpoint) {
        return events.stream().filter(event -> event.kind().equals("state") && event.endpoint().equals(endpoint))
                .map(Event::detail).collect(Collectors.toList());
    }

    /**
     * Waits (up to ten seconds) until {@code count} events of {@code kind} arrived: the pool reports an outcome just
     * after completing the operation's future, so a test that saw the future complete may be a moment early.
     */
    void awaitCount(String kind, long count) throws InterruptedException {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (count(kind) < count) {
            if (System.nanoTime() - giveUp > 0) {
                throw new AssertionError("only " + count(kind) + " of " + count + " " + kind + " events arrived");
            }
            Thread.sleep(5);
        }
    }
}
