package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RespClientWireTest {
    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path dir;

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aCommandIsAnArrayOfBulkStrings() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RespClientWire.command(out, ascii("SET"), ascii("k"), new byte[0]);
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
    }

    @Test
    void repliesAreToldApartAndAValueIsSkippedWhole() throws Exception {
        InputStream in = new ByteArrayInputStream(ascii("+OK\r\n$5\r\na\r\nbc\r\n$-1\r\n:2\r\n-ERR no\r\n"));
        assertThat(RespClientWire.reply(in)).isEqualTo("+OK");
        assertThat(RespClientWire.reply(in)).as("a value holding CRLF").isEqualTo("$5");
        assertThat(RespClientWire.reply(in)).isEqualTo("$-1");
        assertThat(RespClientWire.reply(in)).isEqualTo(":2");
        assertThat(RespClientWire.reply(in)).isEqualTo("-ERR no");
        assertThatThrownBy(() -> RespClientWire.reply(in)).isInstanceOf(EOFException.class);
    }

    @Test
    void theyMeetTheServerOverASocket() throws Exception {
        try (RespFixture f = new RespFixture(dir);
             java.net.Socket s = new java.net.Socket("127.0.0.1", f.port())) {
            RespClientWire.command(s.getOutputStream(), ascii("SET"), ascii("wire"), ascii("value"));
            RespClientWire.command(s.getOutputStream(), ascii("GET"), ascii("wire"));
            InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            assertThat(RespClientWire.reply(in)).isEqualTo("+OK");
            assertThat(RespClientWire.reply(in)).isEqualTo("$5");
        }
    }
}
