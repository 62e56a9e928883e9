// Benchmarks -- runs the JMH benchmarks of this module with the JVM flags every Elastikey JVM needs.
//
// Build, then run from the reactor root (JMH forks inherit this class path):
//   ./mvnw -B -q -pl perf -am package -DskipTests
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks --help
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks --list
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks StoreGetBenchmark \
//       --param inMemoryPercent=10,0 --result store-get.json
package io.elastikey.perf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import io.elastikey.perf.skiscale.SkiScaleCommand;
import io.elastikey.perf.soak.ChaosCommand;
import io.elastikey.perf.soak.SoakCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A small front end to JMH's {@link Runner}. Unset options keep each benchmark's annotations
 * (forks, iterations, times). Every fork gets, in this order: the host JVM's own arguments (JMH's
 * default), the flags of {@code jvm.properties} (through the filtered {@code perf.properties}),
 * {@code -Xmx<heap>}, then {@code --jvm-args}; for a repeated flag such as {@code -Xmx} the last
 * one wins.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs the JMH benchmarks of elastikey-perf whose names match the regexes.",
                "`bench ski-scale` is the key server at the use case's scale instead, `bench soak` the suite under "
                        + "sustained load, `bench chaos` the suite while things break (each with its own --help)."},
        subcommands = {SkiScaleCommand.class, SoakCommand.class, ChaosCommand.class},
        footer = {"", "Examples:",
                "  ./elastikey bench StoreGetBenchmark -f 1 -wi 1 -w 1s -i 2 -r 2s --param keys=20000",
                "  ./elastikey bench ski-scale --quick",
                "  ./elastikey bench soak --duration 2m",
                "  ./elastikey bench chaos%n"})
public final class Benchmarks implements Callable<Integer> {

    @Parameters(paramLabel = "REGEX", arity = "0..*",
            description = "Benchmarks to run, regexes over class.method (default: all).")
    List<String> includes = new ArrayList<>();

    @Option(names = {"-e", "--exclude"}, paramLabel = "REGEX", description = "Benchmarks to leave out.")
    List<String> excludes = new ArrayList<>();

    @Option(names = {"-p", "--param"}, paramLabel = "NAME=V1,V2",
            description = "Overrides a @Param, e.g. keys=100000 or inMemoryPercent=10,0.")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = {"-f", "--forks"}, description = "Forks per benchmark.")
    Integer forks;

    @Option(names = {"-wi", "--warmup-iterations"}, description = "Warmup iterations.")
    Integer warmupIterations;

    @Option(names = {"-w", "--warmup-time"}, paramLabel = "TIME", description = "Time per warmup iteration, e.g. 2s.")
    String warmupTime;

    @Option(names = {"-i", "--iterations"}, description = "Measurement iterations.")
    Integer iterations;

    @Option(names = {"-r", "--time"}, paramLabel = "TIME", description = "Time per measurement iteration, e.g. 5s.")
    String time;

    @Option(names = "--heap", defaultValue = "2g",
            description = "Fork heap, passed as -Xmx (default: ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--jvm-args", paramLabel = "ARGS", defaultValue = "",
            description = "More fork JVM arguments, space-separated, after the others (e.g. \"-Xmx256m\").")
    String jvmArgs;

    @Option(names = "--prof", paramLabel = "PROFILER", description = "A JMH profiler with options as on JMH's command line, e.g. gc or "
            + "async:libPath=/path/libasyncProfiler.so;output=flat.")
    List<String> profilers = new ArrayList<>();

    @Option(names = "--result", paramLabel = "FILE",
            defaultValue = "${sys:elastikey.home:-${sys:user.dir}}/jmh-result.json",
            description = "JSON results file (default: ${DEFAULT-VALUE}).")
    String result;

    @Option(names = {"-l", "--list"}, description = "List the matching benchmarks and exit.")
    boolean list;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Benchmarks()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Runner runner = new Runner(options().build());
        if (list) {
            runner.list();
        } else {
            runner.run();
        }
        return 0;
    }

    ChainedOptionsBuilder options() {
        ChainedOptionsBuilder b = new OptionsBuilder()
                .resultFormat(ResultFormatType.JSON)
                .result(result)
                .shouldFailOnError(true);
        (includes.isEmpty() ? List.of("io\\.elastikey\\.perf\\..*") : includes).forEach(b::include);
        excludes.forEach(b::exclude);
        params.forEach((name, values) -> b.param(name, values.split(",")));
        List<String> fork = new ArrayList<>(JvmFlags.fromBuild());
        fork.add("-Xmx" + heap);
        fork.addAll(JvmFlags.split(jvmArgs));
        b.jvmArgsAppend(fork.toArray(String[]::new));
        if (forks != null) {
            b.forks(forks);
            if (forks == 0) {
                System.err.println("warning: -f 0 runs in this JVM; the flags of jvm.properties and --heap apply "
                        + "only if it was started with them: " + JvmFlags.SHELL_HINT);
            }
        }
        if (warmupIterations != null) {
            b.warmupIterations(warmupIterations);
        }
        if (warmupTime != null) {
            b.warmupTime(TimeValue.fromString(warmupTime));
        }
        if (iterations != null) {
            b.measurementIterations(iterations);
        }
        if (time != null) {
            b.measurementTime(TimeValue.fromString(time));
        }
        for (String p : profilers) {
            int colon = p.indexOf(':'); // "name:options", as on JMH's own command line
            if (colon < 0) {
                b.addProfiler(p);
            } else {
                b.addProfiler(p.substring(0, colon), p.substring(colon + 1));
            }
        }
        return b;
    }
}
