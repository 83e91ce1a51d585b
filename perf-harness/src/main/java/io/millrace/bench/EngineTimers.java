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
 * The engine's own timers that say where its time goes, as its processes' metrics count them (a sum and a count per
 * series): each ended execution's hops ({@code millrace_execution_hops_seconds}, by {@code hop}) and, in a standalone
 * engine, its embedded broker's requests ({@code millrace_broker_request_seconds} and
 * {@code millrace_broker_request_queue_seconds}, by {@code request}). Read before and after a window, over the processes
 * read both times (one that did not answer either time, or was restarted between, its counters lower, is left out).
 *
 * @param byProcess for each process's metrics address, each series' seconds and count, as {@code [seconds, count]}, by
 *                  {@link #key}
 */
record EngineTimers(Map<URI, Map<String, double[]>> byProcess) {
    /** The hops in the order an execution's time passes through them, as the metric's {@code hop} tag names them. */
    static final List<String> HOPS = List.of("queued", "to_workers", "waiting_for_slot", "running", "results_back",
            "outside_workers", "end_to_read");
    static final String HOPS_METRIC = "millrace_execution_hops_seconds";
    static final String BROKER_METRIC = "millrace_broker_request_seconds";
    static final String BROKER_QUEUE_METRIC = "millrace_broker_request_queue_seconds";
    static final EngineTimers NONE = new EngineTimers(Map.of());

    private static final Pattern LINE = Pattern.compile("(?m)^(" + HOPS_METRIC + "|" + BROKER_METRIC + "|"
            + BROKER_QUEUE_METRIC + ")_(sum|count)\\{([^}]*)}\\s+(\\S+)");
    private static final Pattern TAG = Pattern.compile("(?:hop|request)=\"([^\"]+)\"");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** A series' key: its metric and its {@code hop} or {@code request}. */
    static String key(String metric, String tag) {
        return metric + "/" + tag;
    }

    /** Reads the timers from each of {@code metrics} (Prometheus text); a process that does not answer is left out. */
    static EngineTimers read(List<URI> metrics) {
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
        return new EngineTimers(byProcess);
    }

    /** One process's timers in Prometheus' text format, summed over the series of each key. */
    static Map<String, double[]> parse(String prometheusText) {
        var sums = new LinkedHashMap<String, double[]>();
        Matcher line = LINE.matcher(prometheusText);
        while (line.find()) {
            Matcher tag = TAG.matcher(line.group(3));
            if (tag.find()) {
                double[] sum = sums.computeIfAbsent(key(line.group(1), tag.group(1)), k -> new double[2]);
                sum[line.group(2).equals("sum") ? 0 : 1] += Double.parseDouble(line.group(4));
            }
        }
        return sums;
    }

    /**
     * Each key's seconds and count since {@code before}, as {@code [seconds, count]}, over the processes read both
     * times whose count of that key did not fall; a key that nothing counted in is left out.
     */
    Map<String, double[]> since(EngineTimers before) {
        var deltas = new LinkedHashMap<String, double[]>();
        for (var process : byProcess.entrySet()) {
            Map<String, double[]> earlier = before.byProcess.get(process.getKey());
            if (earlier == null) {
                continue; // not read before the window: its counts since its start are not the window's
            }
            process.getValue().forEach((key, now) -> {
                double[] then = earlier.getOrDefault(key, new double[2]);
                if (now[1] > then[1]) { // lower: restarted between the readings
                    double[] delta = deltas.computeIfAbsent(key, k -> new double[2]);
                    delta[0] += now[0] - then[0];
                    delta[1] += now[1] - then[1];
                }
            });
        }
        return deltas;
    }

    /** Each hop's mean since {@code before}, in milliseconds, in {@link #HOPS}' order; a hop nothing ended in is left out. */
    Map<String, Double> hopMeansMsSince(EngineTimers before) {
        Map<String, double[]> deltas = since(before);
        var means = new LinkedHashMap<String, Double>();
        for (String hop : HOPS) {
            double[] delta = deltas.get(key(HOPS_METRIC, hop));
            if (delta != null) {
                means.put(hop, delta[0] * 1000 / delta[1]);
            }
        }
        return means;
    }
}
