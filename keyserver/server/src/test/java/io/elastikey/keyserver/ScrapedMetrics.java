// ScrapedMetrics -- the samples of one Prometheus text scrape, looked up by name and labels.
package io.elastikey.keyserver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * A scrape of {@code /metrics} in the Prometheus text format (version 0.0.4), read the way Prometheus reads it: one
 * sample per line, {@code name{label="value",...} number}, comments skipped. Lookups name the labels they care
 * about; a sample matches when it has at least those labels with those values.
 */
record ScrapedMetrics(String text, List<Sample> samples) {

    /** One line of the exposition. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    static ScrapedMetrics parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String name;
            Map<String, String> labels = new LinkedHashMap<>();
            if (brace >= 0 && brace < space) {
                name = line.substring(0, brace);
                parseLabels(line.substring(brace + 1, line.lastIndexOf('}')), labels);
            } else {
                name = line.substring(0, space);
            }
            samples.add(new Sample(name, Map.copyOf(labels), Double.parseDouble(line.substring(space + 1))));
        }
        return new ScrapedMetrics(text, List.copyOf(samples));
    }

    /** The sum of the samples named {@code name} carrying {@code labels} (name, value, name, value...). */
    double value(String name, String... labels) {
        OptionalDouble sum = find(name, labels).stream().mapToDouble(Sample::value).reduce(Double::sum);
        if (sum.isEmpty()) {
            throw new AssertionError("no sample " + name + " " + List.of(labels) + " in:\n" + text);
        }
        return sum.getAsDouble();
    }

    /** The samples named {@code name} carrying {@code labels} (name, value, name, value...). */
    List<Sample> find(String name, String... labels) {
        List<Sample> found = new ArrayList<>();
        for (Sample sample : samples) {
            if (sample.name().equals(name) && hasLabels(sample, labels)) {
                found.add(sample);
            }
        }
        return found;
    }

    private static boolean hasLabels(Sample sample, String... labels) {
        for (int i = 0; i < labels.length; i += 2) {
            if (!labels[i + 1].equals(sample.labels().get(labels[i]))) {
                return false;
            }
        }
        return true;
    }

    /** {@code a="x",b="y \"q\""}; values may hold escaped quotes, backslashes and newlines. */
    private static void parseLabels(String text, Map<String, String> labels) {
        int i = 0;
        while (i < text.length()) {
            int equals = text.indexOf('=', i);
            String label = text.substring(i, equals).strip();
            StringBuilder value = new StringBuilder();
            int j = equals + 2; // past ="
            while (text.charAt(j) != '"') {
                char c = text.charAt(j);
                if (c == '\\') {
                    char next = text.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
                j++;
            }
            labels.put(label, value.toString());
            i = j + 1;
            if (i < text.length() && text.charAt(i) == ',') {
                i++;
            }
        }
    }
}
