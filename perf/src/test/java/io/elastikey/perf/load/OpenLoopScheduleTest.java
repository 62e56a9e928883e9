package io.elastikey.perf.load;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;

class OpenLoopScheduleTest {

    @Test
    void everyRequestIsHandedOutOnceNeverBeforeItIsDueThenEachWorkerGetsTheEnd() throws Exception {
        LoadSteps load = LoadSteps.parse("300x1,0x1,100x1");
        OpenLoopSchedule schedule = new OpenLoopSchedule(load);
        ConcurrentLinkedQueue<Long> taken = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> early = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            Thread t = new Thread(() -> {
                try {
                    for (long i = schedule.next(); i >= 0; i = schedule.next()) {
                        if (System.nanoTime() < schedule.intendedStart(i)) {
                            early.add(i);
                        }
                        taken.add(i);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            workers.add(t);
            t.start();
        }
        for (Thread t : workers) {
            t.join();
        }

        assertThat(taken).hasSize(400).doesNotHaveDuplicates().allSatisfy(i -> assertThat(i).isBetween(0L, 399L));
        assertThat(early).isEmpty();
    }

    @Test
    void stopEndsEveryWorkerBeforeTheLastStep() throws Exception {
        OpenLoopSchedule schedule = new OpenLoopSchedule(LoadSteps.parse("100x3600"));
        ConcurrentLinkedQueue<Long> taken = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            Thread t = new Thread(() -> {
                try {
                    for (long i = schedule.next(); i >= 0; i = schedule.next()) {
                        taken.add(i);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            threads.add(t);
            t.start();
        }
        while (taken.size() < 5) {
            Thread.sleep(10);
        }
        schedule.stop();
        for (Thread t : threads) {
            t.join(10_000);
        }

        assertThat(threads).noneMatch(Thread::isAlive);
        assertThat(taken).doesNotHaveDuplicates().hasSizeLessThan(360_000);
        assertThat(schedule.next()).isEqualTo(-1);
    }
}
