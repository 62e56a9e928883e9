// GovernorConfig -- the validated settings of one MemoryGovernor.
package io.elastikey.store.governor;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings for {@link MemoryGovernor} and its {@link GovernorPolicy}, built with
 * {@link #builder()} and changed with {@link #mutate()}. {@link Builder#build()} fails fast on a bad
 * value and names it; nothing is silently clamped. Durations are turned into whole ticks of
 * {@link #interval()} (rounded up) where the policy counts them.
 */
public final class GovernorConfig {

    private static final long MIB = 1L << 20;

    private final Duration interval;
    private final long minBudgetBytes;
    private final long maxBudgetBytes;
    private final long growStepBytes;
    private final long shrinkStepBytes;
    private final double growMissRate;
    private final int growAfterTicks;
    private final double quietRequestRate;
    private final Duration shrinkAfter;
    private final Duration cooldown;
    private final long reserveBytes;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private final boolean releaseOnClose;

    private GovernorConfig(Builder b) {
        interval = b.interval;
        minBudgetBytes = b.minBudgetBytes;
        maxBudgetBytes = b.maxBudgetBytes;
        growStepBytes = b.growStepBytes;
        shrinkStepBytes = b.shrinkStepBytes;
        growMissRate = b.growMissRate;
        growAfterTicks = b.growAfterTicks;
        quietRequestRate = b.quietRequestRate;
        shrinkAfter = b.shrinkAfter;
        cooldown = b.cooldown;
        reserveBytes = b.reserveBytes;
        backoffInitial = b.backoffInitial;
        backoffMax = b.backoffMax;
        releaseOnClose = b.releaseOnClose;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values. */
    public Builder mutate() {
        Builder b = new Builder();
        b.interval = interval;
        b.minBudgetBytes = minBudgetBytes;
        b.maxBudgetBytes = maxBudgetBytes;
        b.growStepBytes = growStepBytes;
        b.shrinkStepBytes = shrinkStepBytes;
        b.growMissRate = growMissRate;
        b.growAfterTicks = growAfterTicks;
        b.quietRequestRate = quietRequestRate;
        b.shrinkAfter = shrinkAfter;
        b.cooldown = cooldown;
        b.reserveBytes = reserveBytes;
        b.backoffInitial = backoffInitial;
        b.backoffMax = backoffMax;
        b.releaseOnClose = releaseOnClose;
        return b;
    }

    public Duration interval() { return interval; }
    public long minBudgetBytes() { return minBudgetBytes; }
    public long maxBudgetBytes() { return maxBudgetBytes; }
    public long growStepBytes() { return growStepBytes; }
    public long shrinkStepBytes() { return shrinkStepBytes; }
    public double growMissRate() { return growMissRate; }
    public int growAfterTicks() { return growAfterTicks; }
    public double quietRequestRate() { return quietRequestRate; }
    public Duration shrinkAfter() { return shrinkAfter; }
    public Duration cooldown() { return cooldown; }
    public long reserveBytes() { return reserveBytes; }
    public Duration backoffInitial() { return backoffInitial; }
    public Duration backoffMax() { return backoffMax; }
    public boolean releaseOnClose() { return releaseOnClose; }

    /** {@link #shrinkAfter()} in ticks, at least 1. */
    public int shrinkAfterTicks() {
        return ticks(shrinkAfter);
    }

    /** {@link #cooldown()} in ticks; 0 for no cooldown. */
    public int cooldownTicks() {
        return cooldown.isZero() ? 0 : ticks(cooldown);
    }

    private int ticks(Duration d) {
        long n = (d.toNanos() + interval.toNanos() - 1) / interval.toNanos();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, n));
    }

    @Override
    public String toString() {
        return "GovernorConfig{interval=" + interval + ", min=" + minBudgetBytes / MIB + " MiB, max="
                + maxBudgetBytes / MIB + " MiB, growStep=" + growStepBytes / MIB + " MiB, shrinkStep="
                + shrinkStepBytes / MIB + " MiB, growMissRate=" + growMissRate + "/s, growAfterTicks="
                + growAfterTicks + ", quietRequestRate=" + quietRequestRate + "/s, shrinkAfter=" + shrinkAfter
                + ", cooldown=" + cooldown + ", reserve=" + reserveBytes / MIB + " MiB, backoff=" + backoffInitial
                + ".." + backoffMax + ", releaseOnClose=" + releaseOnClose + "}";
    }

    /** Defaults suit a key server with a 64 MiB to 4 GiB memory tier; every setter gives its default. */
    public static final class Builder {
        private Duration interval = Duration.ofSeconds(1);
        private long minBudgetBytes = 64 * MIB;
        private long maxBudgetBytes = 4096 * MIB;
        private long growStepBytes = 256 * MIB;
        private long shrinkStepBytes = 256 * MIB;
        private double growMissRate = 100;
        private int growAfterTicks = 3;
        private double quietRequestRate = 50;
        private Duration shrinkAfter = Duration.ofMinutes(5);
        private Duration cooldown = Duration.ofSeconds(30);
        private long reserveBytes = 512 * MIB;
        private Duration backoffInitial = Duration.ofSeconds(1);
        private Duration backoffMax = Duration.ofMinutes(1);
        private boolean releaseOnClose = true;

        private Builder() {
        }

        /** Time between two ticks (samples and decisions). Default 1 s. */
        public Builder interval(Duration v) { interval = v; return this; }

        /** The budget is never shrunk below this, nor left below it. Default 64 MiB. */
        public Builder minBudgetBytes(long v) { minBudgetBytes = v; return this; }

        /** The budget is never grown above this. Default 4 GiB. */
        public Builder maxBudgetBytes(long v) { maxBudgetBytes = v; return this; }

        /** How much one grow adds. Default 256 MiB. */
        public Builder growStepBytes(long v) { growStepBytes = v; return this; }

        /** How much one shrink gives back. Default 256 MiB. */
        public Builder shrinkStepBytes(long v) { shrinkStepBytes = v; return this; }

        /** Misses per second (of keys the store holds) from which the store is under pressure. Default 100. */
        public Builder growMissRate(double v) { growMissRate = v; return this; }

        /** Consecutive ticks under pressure before a grow. Default 3. */
        public Builder growAfterTicks(int v) { growAfterTicks = v; return this; }

        /** Lookups per second at or below which a tick counts as quiet. Default 50. */
        public Builder quietRequestRate(double v) { quietRequestRate = v; return this; }

        /** How long the store must stay quiet before a shrink. Default 5 min. */
        public Builder shrinkAfter(Duration v) { shrinkAfter = v; return this; }

        /** No change for this long after a change (or a refused request). Default 30 s. */
        public Builder cooldown(Duration v) { cooldown = v; return this; }

        /** Machine memory (MemAvailable) never asked for: grows stop short of it. Default 512 MiB. */
        public Builder reserveBytes(long v) { reserveBytes = v; return this; }

        /** First wait before trying an absent agent again; doubles per failure. Default 1 s. */
        public Builder backoffInitial(Duration v) { backoffInitial = v; return this; }

        /** Longest wait between tries of an absent agent. Default 1 min. */
        public Builder backoffMax(Duration v) { backoffMax = v; return this; }

        /** Whether {@link MemoryGovernor#close()} gives the grant back to the agent. Default true. */
        public Builder releaseOnClose(boolean v) { releaseOnClose = v; return this; }

        public GovernorConfig build() {
            requirePositive(interval, "interval");
            require(minBudgetBytes >= 0, "minBudgetBytes must be >= 0, was " + minBudgetBytes);
            require(maxBudgetBytes >= minBudgetBytes, "maxBudgetBytes (" + maxBudgetBytes
                    + ") must be >= minBudgetBytes (" + minBudgetBytes + ")");
            require(maxBudgetBytes <= (1L << 50), "maxBudgetBytes must be <= 1 PiB, was " + maxBudgetBytes);
            require(minBudgetBytes % MIB == 0 && maxBudgetBytes % MIB == 0 && growStepBytes % MIB == 0
                    && shrinkStepBytes % MIB == 0, "minBudgetBytes, maxBudgetBytes, growStepBytes and "
                    + "shrinkStepBytes must be whole MiB (grants are in MiB)");
            require(growStepBytes >= MIB, "growStepBytes must be >= 1 MiB, was " + growStepBytes);
            require(shrinkStepBytes >= MIB, "shrinkStepBytes must be >= 1 MiB, was " + shrinkStepBytes);
            require(growMissRate > 0, "growMissRate must be > 0, was " + growMissRate);
            require(growAfterTicks >= 1, "growAfterTicks must be >= 1, was " + growAfterTicks);
            require(quietRequestRate >= 0, "quietRequestRate must be >= 0, was " + quietRequestRate);
            requirePositive(shrinkAfter, "shrinkAfter");
            Objects.requireNonNull(cooldown, "cooldown");
            require(!cooldown.isNegative(), "cooldown must be >= 0, was " + cooldown);
            require(reserveBytes >= 0, "reserveBytes must be >= 0, was " + reserveBytes);
            requirePositive(backoffInitial, "backoffInitial");
            requirePositive(backoffMax, "backoffMax");
            require(backoffMax.compareTo(backoffInitial) >= 0, "backoffMax (" + backoffMax
                    + ") must be >= backoffInitial (" + backoffInitial + ")");
            return new GovernorConfig(this);
        }

        private static void requirePositive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            require(!d.isNegative() && !d.isZero(), name + " must be > 0, was " + d);
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
