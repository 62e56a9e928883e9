// Leaks -- fails a test class when Netty's leak detector, at PARANOID, reports a buffer never released.
package io.elastikey.edge.content;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Netty reports a leak when a tracked buffer is garbage-collected unreleased, at the next tracked allocation, as an
 * ERROR log line. This extension turns tracking on for every buffer before the class runs and afterwards collects
 * garbage, allocates to make the detector report, and fails on any report.
 */
public final class Leaks implements BeforeAllCallback, AfterAllCallback {
    private static final ListAppender<ILoggingEvent> REPORTS = new ListAppender<>();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        Logger logger = (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);
        logger.setLevel(Level.ERROR);
        REPORTS.start();
        logger.addAppender(REPORTS);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        REPORTS.list.clear();
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        for (int round = 0; round < 5; round++) {
            System.gc();
            Thread.sleep(50);
            for (int i = 0; i < 64; i++) {
                release(PooledByteBufAllocator.DEFAULT.directBuffer(16));
                release(PooledByteBufAllocator.DEFAULT.heapBuffer(16));
                release(UnpooledByteBufAllocator.DEFAULT.heapBuffer(16));
                release(UnpooledByteBufAllocator.DEFAULT.directBuffer(16));
            }
        }
        List<String> leaks = List.copyOf(REPORTS.list).stream()
                .map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains("LEAK"))
                .collect(Collectors.toList());
        assertThat(leaks).as("Netty buffer leaks").isEmpty();
    }

    private static void release(ByteBuf b) {
        b.release();
    }
}
