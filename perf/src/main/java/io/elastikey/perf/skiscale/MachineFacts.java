// MachineFacts -- what the results say about the machine they were measured on: cores, CPU, memory, JVM, commit, load.
package io.elastikey.perf.skiscale;

import io.elastikey.protocol.config.ElastikeyHome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Figures from a shared 2-vCPU machine mean little without the machine beside them, and the load average before and
 * after each run says whether other work was competing. Read from {@code /proc} and {@code git}; anything that cannot
 * be read is "-", never an error (the benchmark also runs where there is no {@code /proc} or no repository).
 */
public final class MachineFacts {
    private MachineFacts() {
    }

    /** cores, cpu, memory, java, os, commit, load_average_at_start. */
    public static Map<String, Object> describe() {
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
        machine.put("memory", memory(firstValue(Path.of("/proc/meminfo"), "MemTotal")));
        machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        machine.put("commit", commit());
        machine.put("load_average_at_start", loadAverage());
        return machine;
    }

    /** The 1-minute load average, as /proc/loadavg says it, or "-". */
    public static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "-";
        }
    }

    private static String firstValue(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return "-";
    }

    /** {@code 24684092 kB} as {@code 23.5 GiB}. */
    static String memory(String memTotal) {
        try {
            return String.format("%.1f GiB", Long.parseLong(memTotal.replaceAll("[^0-9]", "")) / 1024.0 / 1024.0);
        } catch (NumberFormatException e) {
            return memTotal;
        }
    }

    /** The checked-out commit, with {@code +changes} when the work tree differs from it. */
    private static String commit() {
        String hash = git("rev-parse", "--short", "HEAD");
        if (hash.equals("-")) {
            return hash;
        }
        String changes = git("status", "--porcelain", "--untracked-files=no");
        return changes.isEmpty() || changes.equals("-") ? hash : hash + "+changes";
    }

    private static String git(String... args) {
        try {
            String[] command = new String[args.length + 1];
            command[0] = "git";
            System.arraycopy(args, 0, command, 1, args.length);
            // In the Elastikey directory: the launcher runs Java in the caller's directory.
            Process git = new ProcessBuilder(command).directory(ElastikeyHome.resolve(".").toFile())
                    .redirectErrorStream(true).start();
            String text = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor() == 0 ? text : "-";
        } catch (IOException | InterruptedException e) {
            return "-";
        }
    }
}
