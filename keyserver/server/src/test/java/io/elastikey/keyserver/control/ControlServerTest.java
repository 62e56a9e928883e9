// ControlServerTest -- what the control socket's log may repeat of a client's request.
package io.elastikey.keyserver.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class ControlServerTest {
    static String logged(String first) {
        return ControlServer.commandName(new ControlWire.Request("store", List.of(first, "--password=s3cret")));
    }

    @Test
    void aSubcommandsNameIsLoggedAndNothingElseOfTheRequestIs() {
        assertThat(logged("import")).isEqualTo("import");
        assertThat(logged("export-public")).isEqualTo("export-public");
    }

    @Test
    void aFirstArgumentThatIsNotANameCannotForgeOrGarbleALogLine() {
        for (String hostile : List.of("list\n04:59:59.999 ERROR i.e.FAKE - forged", "\u0000\u00ff\u00fe", "Import",
                "--password=s3cret", "x".repeat(33), "", "count\r")) {
            assertThat(logged(hostile)).as(hostile).isEqualTo(ControlServer.NOT_A_COMMAND);
        }
    }
}
