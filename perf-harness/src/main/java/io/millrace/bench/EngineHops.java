package io.millrace.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The engine's own breakdown of its executions' time, as its processes' metrics count it
 * ({@code millrace_execution_hops_seconds}, a sum and a count per hop and process): read before and after a window,
 * the mean of each hop over the executions that ended in it, over the processes read both times (one that did not
 * answer either time, or was restarted between, its counters lower, is left out).
 *
 * @param byProcess for each process's metrics address, each hop's seconds and count, as {@code [seconds, count]}
 */
record EngineHops(Map<URI, Map<String, double[]>> byProcess) {
    /** The hops in the order an execution's time passes through them, as the metric's {@code hop} tag names them. */
    static final List<String> HOPS = List.of("queued", "to_workers", "waiting_for_slot", "running", "results_back",
            "outside_workers", "end_to_read");
    static final EngineHops NONE = new EngineHops(Map.of());

    private static final Pattern LINE = Pattern.compile(
            "(?m)^millrace_execution_hops_seconds_(sum|count)\\{([^}]*)}\\s+(\\S+)");
    private static final Pattern HOP = Pattern.compile("hop=\"([^\"]+)\"");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** Reads the hops from each of {@code metrics} (Prometheus text); a process that does not answer is left out. */
    static EngineHops read(List<URI> metrics) {
        var byProcess = new LinkedHashMap<URI, Map<String, double[]>>();
        for (URI uri : metrics) {
            try {
                var answer = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    byProcess.put(uri, parse(answer.body()));
                }
            } catch (IOException e) {
                // a process that is down or restarting: left out of this reading
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return NONE;
            }
        }
        return new EngineHops(byProcess);
    }

    /** One process's hops in Prometheus' text format, summed over the series of each hop. */
    static Map<String, double[]> parse(String prometheusText) {
        var sums = new LinkedHashMap<String, double[]>();
        Matcher line = LINE.matcher(prometheusText);
        while (line.find()) {
            Matcher hop = HOP.matcher(line.group(2));
            if (hop.find()) {
                double[] sum = sums.computeIfAbsent(hop.group(1), h -> new double[2]);
                sum[line.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(line.group(3));
            }
        }
        return sums;
    }

    /** Each hop's mean since {@code before}, in milliseconds, in {@link #HOPS}' order; a hop nothing ended in is left out. */
    Map<String, Double> meansMsSince(EngineHops before) {
        var means = new LinkedHashMap<String, Double>();
        for (String hop : HOPS) {
            double seconds = 0;
            double count = 0;
            for (var process : byProcess.entrySet()) {
                Map<String, double[]> earlier = before.byProcess.get(process.getKey());
                if (earlier == null) {
                    continue; // not read before the window: its counts since its start are not the window's
                }
                double[] now = process.getValue().getOrDefault(hop, new double[2]);
                double[] then = earlier.getOrDefault(hop, new double[2]);
                if (now[1] >= then[1]) { // lower: restarted between the readings
                    seconds += now[0] - then[0];
                    count += now[1] - then[1];
                }
            }
            if (count > 0) {
                means.put(hop, seconds * 1000 / count);
            }
        }
        return means;
    }
}
