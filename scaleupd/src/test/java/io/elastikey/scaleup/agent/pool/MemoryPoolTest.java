package io.elastikey.scaleup.agent.pool;

import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.ClientLimits;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryPoolTest {
    private final ClientLimits ks = new ClientLimits("ks", 200, 700);
    private final ClientLimits edge = new ClientLimits("edge", 0, 500);
    private final ClientLimits stranger = new ClientLimits("stranger", 0, 1000);

    private MemoryPool pool(Map<String, Long> restored) {
        return new MemoryPool(1000, List.of(ks, edge), restored);
    }

    @Test
    void minimumsAreReservedFromTheStart() {
        PoolSnapshot s = pool(Map.of()).snapshot();
        assertThat(s.committedMb()).isEqualTo(200);
        assertThat(s.freeMb()).isEqualTo(800);
        assertThat(s.grants()).isEmpty();
    }

    @Test
    void growingWithinTheMinimumCostsThePoolNothing() {
        MemoryPool p = pool(Map.of());
        Decision d = p.rescale(ks, 150);
        assertThat(d.status()).isEqualTo(Status.GRANTED);
        assertThat(d.poolFreeMb()).isEqualTo(800);
        assertThat(p.rescale(ks, 300).poolFreeMb()).isEqualTo(700);
    }

    @Test
    void partialGrantsStopAtTheFreePoolAndAtMax() {
        MemoryPool p = pool(Map.of());
        assertThat(p.rescale(edge, 400).status()).isEqualTo(Status.GRANTED);
        Decision d = p.rescale(stranger, 1000);
        assertThat(d.status()).isEqualTo(Status.PARTIAL);
        assertThat(d.grantedMb()).isEqualTo(400);
        assertThat(d.message()).contains("only 400 MiB free");
        Decision reserved = p.rescale(ks, 900); // nothing is free, but ks's reservation of 200 is its own
        assertThat(reserved.status()).isEqualTo(Status.PARTIAL);
        assertThat(reserved.grantedMb()).isEqualTo(200);
        assertThat(p.snapshot().freeMb()).isZero();
        Decision denied = p.rescale(ks, 900);
        assertThat(denied.status()).isEqualTo(Status.DENIED);
        assertThat(denied.message()).contains("no free memory");
        p.rescale(edge, 100);
        Decision capped = p.rescale(edge, 900);
        assertThat(capped.status()).isEqualTo(Status.PARTIAL);
        assertThat(capped.grantedMb()).isEqualTo(400); // what it gave back, and no more
        assertThat(capped.message()).contains("only 300 MiB free");
    }

    @Test
    void shrinkAndReleaseAlwaysSucceedAndUndoRestores() {
        MemoryPool p = pool(Map.of());
        p.rescale(edge, 300);
        Decision shrink = p.rescale(edge, 100);
        assertThat(shrink.status()).isEqualTo(Status.GRANTED);
        assertThat(shrink.changed()).isTrue();
        p.undo(shrink);
        assertThat(p.status("edge").grantedMb()).isEqualTo(300);
        Decision release = p.release("edge");
        assertThat(release.grantedMb()).isZero();
        assertThat(release.previousMb()).isEqualTo(300);
        assertThat(p.grants()).isEmpty();
        assertThat(p.rescale(edge, 0).changed()).isFalse();
    }

    @Test
    void aRestoredOverCommitDeniesGrowsUntilClientsShrink() {
        MemoryPool p = new MemoryPool(500, List.of(ks, edge), Map.of("edge", 400L, "stranger", 300L));
        PoolSnapshot s = p.snapshot();
        assertThat(s.committedMb()).isEqualTo(900);
        assertThat(s.overCommitMb()).isEqualTo(400);
        assertThat(s.freeMb()).isZero();
        assertThat(p.rescale(stranger, 301).status()).isEqualTo(Status.DENIED);
        assertThat(p.rescale(ks, 150).status()).isEqualTo(Status.GRANTED); // inside its own reservation
        p.release("stranger");
        p.rescale(edge, 100);
        assertThat(p.snapshot().freeMb()).isEqualTo(200);
    }

    @Test
    void grantsNeverExceedThePoolUnderAnySequence() {
        java.util.Random random = new java.util.Random(42);
        MemoryPool p = pool(Map.of());
        List<ClientLimits> all = List.of(ks, edge, stranger, new ClientLimits("x", 0, 1000));
        for (int i = 0; i < 20_000; i++) {
            ClientLimits c = all.get(random.nextInt(all.size()));
            Decision d = random.nextInt(10) == 0 ? p.release(c.name()) : p.rescale(c, random.nextInt(1100));
            assertThat(d.grantedMb()).isLessThanOrEqualTo(Math.max(c.maxMb(), d.previousMb()));
            PoolSnapshot s = p.snapshot();
            assertThat(s.committedMb()).isLessThanOrEqualTo(1000);
            assertThat(s.grantedMb()).isLessThanOrEqualTo(1000);
        }
    }
}
