package io.elastikey.perf.governor;

import io.elastikey.perf.load.LoadSteps;
import io.elastikey.store.governor.GovernorConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class GovernorTimelineTest {

    @Test
    void theDefaultsMakeAValidFastGovernorAndATitleThatNamesThem() {
        GovernorTimeline command = new GovernorTimeline();
        new CommandLine(command).parseArgs();

        GovernorConfig config = command.governorConfig();
        assertThat(config.minBudgetBytes()).isEqualTo(32L << 20);
        assertThat(config.shrinkAfter()).isEqualTo(Duration.ofSeconds(20));
        assertThat(config.shrinkStepBytes()).isGreaterThanOrEqualTo(config.maxBudgetBytes() - config.minBudgetBytes());
        String title = command.title(LoadSteps.parse(command.steps));
        assertThat(title.lines()).hasSize(2);
        assertThat(title).contains("400,000 keys x 1,024 B", "Zipf 1.30", "1,000x20, 10,000x60, 1,000x20, 20x35",
                "budget 32-512 MiB", "shrink after 20 s <= 50/s", "JNI");
        assertThat(title.lines()).allSatisfy(line -> assertThat(line.length()).isLessThan(115));
    }

    @Test
    void keysAreTheSixteenByteFormOfTheirNumber() {
        assertThat(new String(GovernorTimeline.key(42, new byte[16]), StandardCharsets.US_ASCII))
                .isEqualTo("key-000000000042");
        assertThat(new String(GovernorTimeline.key(399_999, new byte[16]), StandardCharsets.US_ASCII))
                .isEqualTo("key-000000399999");
    }
}
