// Results -- a run's results.json (nested facts) and results.md (headline lines and tables), rewritten whole each time.
package io.elastikey.perf.soak;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * Facts go in by name as strings, numbers, booleans, and maps and lists of them, in the order given; the Markdown is
 * the caller's lines. Both files are written through a temporary file and a rename, so a reader never sees half.
 */
final class Results {
    private final Path directory;
    private final Map<String, Object> facts = new LinkedHashMap<>();
    private final List<String> markdown = new ArrayList<>();

    Results(Path directory) {
        this.directory = directory;
    }

    Results fact(String name, Object value) {
        facts.put(name, value);
        return this;
    }

    Results line(String text) {
        markdown.add(text);
        return this;
    }

    String markdown() {
        return String.join("\n", markdown) + "\n";
    }

    void write() throws IOException {
        Path json = directory.resolve("results.json");
        Path tmp = directory.resolve("results.json.tmp");
        try (OutputStream out = Files.newOutputStream(tmp);
             JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            value(g, facts);
        }
        Files.move(tmp, json, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path md = directory.resolve("results.md");
        Files.writeString(directory.resolve("results.md.tmp"), markdown());
        Files.move(directory.resolve("results.md.tmp"), md, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static void value(JsonGenerator g, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                value(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof Iterable<?> list) {
            g.writeStartArray();
            for (Object item : list) {
                value(g, item);
            }
            g.writeEndArray();
        } else if (v instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                g.writeNull();
            } else {
                g.writeNumber(Math.round(d * 1000) / 1000.0);
            }
        } else if (v instanceof Number n) {
            g.writeNumber(n.longValue());
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else {
            g.writeString(v.toString());
        }
    }
}
