// ZipfKeys -- draws key numbers with Zipf-distributed popularity, the popular ones spread over the key space.
package io.elastikey.perf.load;

import java.util.random.RandomGenerator;

/**
 * Key {@code rank} (1 = most popular) is drawn with probability proportional to {@code 1 / rank^s}, by
 * rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to generate variates from monotone
 * discrete distributions", ACM TOMACS 6(3), 1996; the same method as Apache Commons' {@code ZipfDistribution}):
 * constant time per draw, no table. The rank is then mapped to a key number in {@code 0..n-1} by a fixed
 * bijection ({@code ((rank - 1) * m + c) mod n}, {@code m} coprime with {@code n}, {@code c} about 0.38 n), so the
 * hot keys are scattered over the store's log (or the key server's key list) instead of being its first entries.
 * Immutable and thread-safe; callers bring their own random source, so a draw allocates nothing. The store's governor
 * timeline and the SKI load generator ({@code --key-order zipf}) both draw from it.
 */
public final class ZipfKeys {

    private final long n;
    private final double s;
    private final long multiplier;
    private final long offset;
    private final double hIntegralX1;
    private final double hIntegralN;
    private final double sConst;

    /** {@code n} keys, exponent {@code s} (> 0; 1 is classic Zipf, higher is more skewed). */
    public ZipfKeys(long n, double s) {
        if (n < 1 || n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("n must be 1..2^31-1, was " + n);
        }
        if (!(s > 0) || Double.isInfinite(s)) {
            throw new IllegalArgumentException("the exponent must be > 0, was " + s);
        }
        this.n = n;
        this.s = s;
        this.multiplier = coprimeMultiplier(n);
        this.offset = (long) (n * 0.3819660113) % n;
        hIntegralX1 = hIntegral(1.5) - 1.0;
        hIntegralN = hIntegral(n + 0.5);
        sConst = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2));
    }

    /** A key number in {@code 0..n-1}. */
    public long next(RandomGenerator random) {
        return keyOfRank(rank(random));
    }

    /** A popularity rank in {@code 1..n}. */
    public long rank(RandomGenerator random) {
        while (true) {
            double u = hIntegralN + random.nextDouble() * (hIntegralX1 - hIntegralN);
            double x = hIntegralInverse(u);
            long k = Math.max(1, Math.min(n, (long) (x + 0.5)));
            if (k - x <= sConst || u >= hIntegral(k + 0.5) - h(k)) {
                return k;
            }
        }
    }

    /** The key number of popularity rank {@code rank} (1-based). */
    public long keyOfRank(long rank) {
        return ((rank - 1) * multiplier % n + offset) % n; // every term < n <= 2^31: no overflow
    }

    /** About 0.618 n, odd, and coprime with n: consecutive ranks land far apart. */
    static long coprimeMultiplier(long n) {
        if (n <= 2) {
            return 1;
        }
        long m = ((long) (n * 0.6180339887)) | 1;
        while (gcd(m, n) != 1) {
            m += 2;
        }
        return m % n;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    private double h(double x) {
        return Math.exp(-s * Math.log(x));
    }

    private double hIntegral(double x) {
        double logX = Math.log(x);
        return helper2((1.0 - s) * logX) * logX;
    }

    private double hIntegralInverse(double x) {
        double t = Math.max(-1.0, x * (1.0 - s));
        return Math.exp(helper1(t) * x);
    }

    /** log(1 + x) / x, also near 0. */
    private static double helper1(double x) {
        return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
    }

    /** (e^x - 1) / x, also near 0. */
    private static double helper2(double x) {
        return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
    }
}
