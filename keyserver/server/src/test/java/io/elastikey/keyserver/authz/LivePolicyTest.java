// LivePolicyTest -- the policy in force survives files that do not load, and counts them.
package io.elastikey.keyserver.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LivePolicyTest {
    private static final String GOOD = "rule admin\n  client cn admin\n  allow all\n";

    @TempDir
    Path dir;

    @Test
    void aReloadOfAnEmptyOrBrokenFileKeepsThePolicyInForceAndIsCounted() throws Exception {
        Path file = Files.writeString(dir.resolve("policy.conf"), GOOD);
        LivePolicy policy = new LivePolicy(file);
        AccessPolicy good = policy.current();
        long loadedAt = policy.loadedAtMillis();

        for (String broken : new String[] {"", "   \n\n", "# all rules moved\n", "rule x\n  allow all\n"}) {
            Files.writeString(file, broken);
            assertThatThrownBy(policy::reload).isInstanceOf(IOException.class).as(broken);
            assertThat(policy.current()).isSameAs(good);
        }
        Files.delete(file);
        assertThatThrownBy(policy::reload).isInstanceOf(IOException.class);

        assertThat(policy.current()).isSameAs(good);
        assertThat(policy.failedReloads()).isEqualTo(5);
        assertThat(policy.reloads()).isZero();
        assertThat(policy.loadedAtMillis()).isEqualTo(loadedAt);

        Files.writeString(file, GOOD + "rule edge\n  client dns edge.example\n  allow tag edge\n");
        policy.reload();
        assertThat(policy.current().ruleCount()).isEqualTo(2);
        assertThat(policy.reloads()).isEqualTo(1);
        assertThat(policy.failedReloads()).isEqualTo(5);
    }

    @Test
    void aPolicyWithoutRulesIsRefusedAtStartToo() throws Exception {
        Path file = Files.writeString(dir.resolve("policy.conf"), "# to be written\n");

        assertThatThrownBy(() -> new LivePolicy(file)).isInstanceOf(IOException.class)
                .hasMessage(file + ": the policy has no rule (the file is empty or only comments), which would deny "
                        + "every client; a policy file needs at least one rule (docs/authorization.md)");
    }
}
