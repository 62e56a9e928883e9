/* wakeup-jitter -- how late the kernel wakes a sleeping thread on this machine, as a floor for latency tails.
 *
 * Sleeps 200 us at a time for N seconds and counts how much later than asked each wake-up came. Run it beside a
 * load (perf/bin/past-ram's open loop) to see what scheduling alone adds to any server's tail on a small VM.
 *
 *   gcc -O2 -o /tmp/wakeup-jitter perf/tools/wakeup-jitter.c && /tmp/wakeup-jitter 25
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLEEP_NS 200000L

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 10;
    if (seconds < 1) {
        fprintf(stderr, "usage: wakeup-jitter SECONDS\n");
        return 64;
    }
    long end = now_ns() + seconds * 1000000000L;
    long wakeups = 0, over1ms = 0, over5ms = 0, maxLate = 0;
    struct timespec nap = {0, SLEEP_NS};
    while (now_ns() < end) {
        long before = now_ns();
        nanosleep(&nap, NULL);
        long late = now_ns() - before - SLEEP_NS;
        wakeups++;
        if (late > maxLate) maxLate = late;
        if (late > 1000000L) over1ms++;
        if (late > 5000000L) over5ms++;
    }
    printf("wakeups=%ld late>1ms=%ld late>5ms=%ld max_late_ms=%.3f\n", wakeups, over1ms, over5ms, maxLate / 1e6);
    return 0;
}
