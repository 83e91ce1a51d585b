package io.millrace.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Renders the measured rates of a run for people and scripts: a Markdown table for the console, a CSV file, and an
 * SVG chart of latency percentiles against offered rate.
 *
 * <p>Numbers are formatted with {@link Locale#ROOT}. An unknown (NaN) value shows as "-" in Markdown and as an empty
 * field in CSV; the chart leaves it out. A series is one engine setting: the same workload, guarantee and settings.
 */
public final class Report {

    private static final List<String> MARKDOWN_HEADER = List.of("workload", "guarantee", "settings", "offered/s",
            "achieved/s", "task runs/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "failures", "unfinished",
            "refused", "unanswered", "answer p99 ms", "start p99 ms", "floor p50 ms", "EO floor p50 ms", "flow floor ms",
            "CPU %", "heap MiB", "store MiB");
    private static final List<String> CPU_HEADER = Stream.concat(
            Stream.of("workload", "guarantee", "settings", "offered/s", "total"),
            Stream.of(EnginePart.values()).map(EnginePart::label)).toList();
    private static final List<String> BREAKDOWN_HEADER = Stream.concat(Stream.of("workload", "guarantee", "settings",
            "offered/s", "p50 ms", "queued p50 ms", "run p50 ms", "end to read p50 ms"),
            EngineTimers.HOPS.stream().map(hop -> hop.replace('_', ' ') + " mean ms")).toList();
    private static final List<String> BROKER_HEADER = List.of("workload", "guarantee", "settings", "offered/s",
            "requests/execution", "produce/execution", "queued mean ms", "Produce mean ms", "EndTxn mean ms",
            "TxnOffsetCommit mean ms");
    /** In both tables the leading Markdown columns are text and aligned left; the rest are numbers, aligned right. */
    private static final int MARKDOWN_TEXT_COLUMNS = 3;

    /** Scripts read columns by name; the first eleven are a contract and keep their order. */
    static final String CSV_HEADER = "workload,guarantee,offered_per_s,achieved_per_s,p50_ms,p90_ms,p99_ms,p999_ms,"
            + "max_ms,failures,floor_p50_ms,floor_eos_p50_ms,hops,task_runs,task_runs_per_s,flow_floor_ms,engine_cpu_pct,"
            + Stream.of(EnginePart.values()).map(part -> "cpu_" + part.name().toLowerCase(Locale.ROOT) + "_pct,")
                    .collect(Collectors.joining())
            + "engine_heap_mb,store_mb,refused,unanswered,unfinished,answer_p99_ms,start_p99_ms,queued_p50_ms,"
            + "run_p50_ms,end_to_read_p50_ms," + EngineTimers.HOPS.stream().map(hop -> "hop_" + hop + "_mean_ms,")
                    .collect(Collectors.joining())
            + "broker_requests_per_exec,broker_produce_per_exec,broker_queue_mean_ms,broker_produce_mean_ms,"
            + "broker_end_txn_mean_ms,broker_txn_offset_commit_mean_ms,settings";

    private Report() {
    }

    /** Writes {@code results.md}, {@code results.csv} and {@code latency.svg} into {@code dir}, creating it if needed. */
    public static void write(Path dir, List<RateResult> rows) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("results.md"), markdown(rows), UTF_8);
        Files.writeString(dir.resolve("results.csv"), csv(rows), UTF_8);
        Files.writeString(dir.resolve("latency.svg"), svg(rows), UTF_8);
    }

    /**
     * A Markdown table with one row per result, columns padded so that it also reads well as plain text; then, when
     * the engine's CPU per part is known, a second table of it.
     */
    public static String markdown(List<RateResult> rows) {
        var out = new StringBuilder(markdownTable(MARKDOWN_HEADER, rows.stream().map(Report::markdownCells).toList()));
        List<RateResult> broken = rows.stream().filter(row -> !Double.isNaN(row.breakdown().runMs())).toList();
        if (!broken.isEmpty()) {
            out.append("\nWhere the time went, medians of each part on its own (queued: from the due start to the executor's"
                    + " start; run: to its decision that ended the execution; end to read: to a committed reader's read of"
                    + " the terminal snapshot, the commit's wait included); then the engine's own means per hop over the"
                    + " executions that ended in the window (millrace_execution_hops_seconds: queued before the executor read"
                    + " the create, dispatches to the workers, waits for a worker's slot, running, results back, the time"
                    + " no task was away, and end to read for answers that waited)\n\n")
                    .append(markdownTable(BREAKDOWN_HEADER, broken.stream().map(Report::breakdownCells).toList()));
        }
        List<RateResult> withBroker = rows.stream()
                .filter(row -> !Double.isNaN(row.breakdown().broker().perExecution())).toList();
        if (!withBroker.isEmpty()) {
            out.append("\nThe embedded broker's requests over the same executions (millrace_broker_request_seconds: every"
                    + " client's, the bench's own among them), per execution that ended, and their means: the wait for a"
                    + " request handler thread (any request), and the time in the broker of a produce, a transaction's"
                    + " commit and its offsets\n\n")
                    .append(markdownTable(BROKER_HEADER, withBroker.stream().map(Report::brokerCells).toList()));
        }
        List<RateResult> withParts = rows.stream().filter(row -> !row.engineCpu().byPartPct().isEmpty()).toList();
        if (!withParts.isEmpty()) {
            out.append("\nEngine CPU per part, % of one core (").append(EnginePart.JVM.label())
                    .append(": what the processes used outside their Java threads)\n\n")
                    .append(markdownTable(CPU_HEADER, withParts.stream().map(Report::cpuCells).toList()));
        }
        return out.toString();
    }

    private static String markdownTable(List<String> header, List<List<String>> rows) {
        List<List<String>> table = new ArrayList<>();
        table.add(header);
        table.addAll(rows);
        int[] widths = columnWidths(table);
        var out = new StringBuilder();
        appendMarkdownLine(out, header, widths);
        appendMarkdownSeparator(out, widths);
        rows.forEach(cells -> appendMarkdownLine(out, cells, widths));
        return out.toString();
    }

    /** A header line, then one line per result; fields quoted per RFC 4180 where needed. */
    public static String csv(List<RateResult> rows) {
        var out = new StringBuilder(CSV_HEADER).append('\n');
        rows.forEach(row -> out.append(csvLine(row)).append('\n'));
        return out.toString();
    }

    /** A self-contained SVG line chart of p50, p99 and p99.9 latency (log scale) against offered rate, per series. */
    public static String svg(List<RateResult> rows) {
        return rows.isEmpty() ? LatencyChart.empty() : new LatencyChart(rows).render();
    }

    // ---- Markdown

    private static List<String> markdownCells(RateResult r) {
        return List.of(markdownText(r.workload()), markdownText(r.guarantee()), markdownText(r.settings()),
                decimal(r.offeredPerS(), 1), decimal(r.achievedPerS(), 1), decimal(r.taskRunsPerS(), 1),
                millis(r.p50Ms()), millis(r.p90Ms()), millis(r.p99Ms()), millis(r.p999Ms()), millis(r.maxMs()),
                Long.toString(r.failures()), Long.toString(r.unfinished()), Long.toString(r.refused()),
                Long.toString(r.unanswered()), millis(r.answerP99Ms()), millis(r.startP99Ms()), millis(r.floorP50Ms()),
                millis(r.floorEosP50Ms()), millis(r.flowFloorMs()),
                decimal(r.engineCpuPct(), 1), decimal(r.engineHeapMb(), 1), decimal(r.storeMb(), 1));
    }

    private static List<String> breakdownCells(RateResult r) {
        return Stream.concat(Stream.of(markdownText(r.workload()), markdownText(r.guarantee()), markdownText(r.settings()),
                decimal(r.offeredPerS(), 1), millis(r.p50Ms()), millis(r.breakdown().queuedMs()),
                millis(r.breakdown().runMs()), millis(r.breakdown().seenMs())),
                EngineTimers.HOPS.stream().map(hop -> millis(r.breakdown().engineMs(hop)))).toList();
    }

    private static List<String> brokerCells(RateResult r) {
        BrokerRequests broker = r.breakdown().broker();
        return List.of(markdownText(r.workload()), markdownText(r.guarantee()), markdownText(r.settings()),
                decimal(r.offeredPerS(), 1), decimal(broker.perExecution(), 1), decimal(broker.producePerExecution(), 1),
                millis(broker.queueMeanMs()), millis(broker.produceMeanMs()), millis(broker.endTxnMeanMs()),
                millis(broker.txnOffsetCommitMeanMs()));
    }

    private static List<String> cpuCells(RateResult r) {
        return Stream.concat(
                Stream.of(markdownText(r.workload()), markdownText(r.guarantee()), markdownText(r.settings()),
                        decimal(r.offeredPerS(), 1), decimal(r.engineCpuPct(), 1)),
                Stream.of(EnginePart.values()).map(part -> decimal(r.engineCpu().pct(part), 1))).toList();
    }

    /** A pipe or a line break would end the cell or the row. */
    private static String markdownText(String text) {
        return Objects.toString(text, "").replace("|", "\\|").replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ');
    }

    private static String millis(double ms) {
        return decimal(ms, Math.abs(ms) < 10 ? 2 : 1);
    }

    private static String decimal(double value, int decimals) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static int[] columnWidths(List<List<String>> table) {
        int[] widths = new int[table.getFirst().size()];
        for (List<String> cells : table) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(Math.max(widths[i], cells.get(i).length()), 3);
            }
        }
        return widths;
    }

    private static void appendMarkdownLine(StringBuilder out, List<String> cells, int[] widths) {
        out.append('|');
        for (int i = 0; i < widths.length; i++) {
            String padding = " ".repeat(widths[i] - cells.get(i).length());
            boolean left = i < MARKDOWN_TEXT_COLUMNS;
            out.append(' ').append(left ? cells.get(i) + padding : padding + cells.get(i)).append(" |");
        }
        out.append('\n');
    }

    private static void appendMarkdownSeparator(StringBuilder out, int[] widths) {
        out.append('|');
        for (int i = 0; i < widths.length; i++) {
            boolean left = i < MARKDOWN_TEXT_COLUMNS;
            out.append(' ').append(left ? "-".repeat(widths[i]) : "-".repeat(widths[i] - 1) + ":").append(" |");
        }
        out.append('\n');
    }

    // ---- CSV

    private static String csvLine(RateResult r) {
        BrokerRequests broker = r.breakdown().broker();
        return String.join(",", csvText(r.workload()), csvText(r.guarantee()), csvNumber(r.offeredPerS()),
                csvNumber(r.achievedPerS()), csvNumber(r.p50Ms()), csvNumber(r.p90Ms()), csvNumber(r.p99Ms()),
                csvNumber(r.p999Ms()), csvNumber(r.maxMs()), Long.toString(r.failures()), csvNumber(r.floorP50Ms()),
                csvNumber(r.floorEosP50Ms()), Integer.toString(r.hops()), Integer.toString(r.taskRuns()),
                csvNumber(r.taskRunsPerS()), csvNumber(r.flowFloorMs()), csvNumber(r.engineCpuPct()),
                Stream.of(EnginePart.values()).map(part -> csvNumber(r.engineCpu().pct(part)))
                        .collect(Collectors.joining(",")),
                csvNumber(r.engineHeapMb()), csvNumber(r.storeMb()), Long.toString(r.refused()),
                Long.toString(r.unanswered()), Long.toString(r.unfinished()), csvNumber(r.answerP99Ms()),
                csvNumber(r.startP99Ms()),
                csvNumber(r.breakdown().queuedMs()), csvNumber(r.breakdown().runMs()), csvNumber(r.breakdown().seenMs()),
                EngineTimers.HOPS.stream().map(hop -> csvNumber(r.breakdown().engineMs(hop))).collect(Collectors.joining(",")),
                csvNumber(broker.perExecution()), csvNumber(broker.producePerExecution()), csvNumber(broker.queueMeanMs()),
                csvNumber(broker.produceMeanMs()), csvNumber(broker.endTxnMeanMs()),
                csvNumber(broker.txnOffsetCommitMeanMs()), csvText(r.settings()));
    }

    /** Plain decimal, never an exponent; empty when unknown. */
    private static String csvNumber(double value) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value);
    }

    private static String csvText(String text) {
        String value = Objects.toString(text, "");
        boolean needsQuotes = value.chars().anyMatch(c -> c == ',' || c == '"' || c == '\n' || c == '\r');
        return needsQuotes ? '"' + value.replace("\"", "\"\"") + '"' : value;
    }

    // ---- SVG

    /** The lines drawn per series, in legend order. */
    private enum Line {
        P50("p50", RateResult::p50Ms, "", 2, 3),
        P99("p99", RateResult::p99Ms, "7 4", 2, 3),
        P999("p99.9", RateResult::p999Ms, "1.5 3", 2, 3),
        FLOOR("Kafka floor of the flow", RateResult::flowFloorMs, "", 1, 2);

        private static final String FLOOR_COLOR = "#9e9e9e";

        final String label;
        final ToDoubleFunction<RateResult> value;
        final String dashes;
        final double strokeWidth;
        final double pointRadius;

        Line(String label, ToDoubleFunction<RateResult> value, String dashes, double strokeWidth, double pointRadius) {
            this.label = label;
            this.value = value;
            this.dashes = dashes;
            this.strokeWidth = strokeWidth;
            this.pointRadius = pointRadius;
        }

        String color(String seriesColor) {
            return this == FLOOR ? FLOOR_COLOR : seriesColor;
        }

        String style(String color) {
            String dash = dashes.isEmpty() ? "" : " stroke-dasharray=\"" + dashes + "\"";
            return "fill=\"none\" stroke=\"" + color + "\" stroke-width=\"" + num(strokeWidth) + "\"" + dash;
        }
    }

    private record Series(String label, List<RateResult> rows) {
    }

    /** Draws one chart; holds the geometry derived from the data. */
    private static final class LatencyChart {

        private static final String TITLE = "Latency percentiles against offered rate";
        private static final List<String> PALETTE = List.of("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f");
        private static final int LEFT = 80;
        private static final int TOP = 50;
        private static final int PLOT_WIDTH = 640;
        private static final int PLOT_HEIGHT = 400;
        private static final int BOTTOM = 60;
        private static final int LEGEND_GAP = 30;
        private static final int LEGEND_ROW = 18;
        private static final int CHAR_WIDTH = 7;
        private static final int X_TICKS = 6;

        private final List<Series> series;
        private final double xMax;
        private final double xStep;
        private final int lowDecade;
        private final int highDecade;
        private final int width;
        private final int height;

        LatencyChart(List<RateResult> rows) {
            this.series = seriesOf(rows);
            double maxRate = rows.stream().mapToDouble(RateResult::offeredPerS).filter(r -> Double.isFinite(r) && r > 0)
                    .max().orElse(1);
            this.xStep = niceStep(maxRate / X_TICKS);
            this.xMax = Math.ceil(maxRate / xStep) * xStep;
            List<Double> latencies = rows.stream()
                    .flatMap(row -> Stream.of(Line.values()).map(line -> line.value.applyAsDouble(row)))
                    .filter(ms -> Double.isFinite(ms) && ms > 0).toList();
            double minMs = latencies.stream().mapToDouble(Double::doubleValue).min().orElse(1);
            double maxMs = latencies.stream().mapToDouble(Double::doubleValue).max().orElse(10);
            this.lowDecade = Math.min(0, (int) Math.floor(Math.log10(minMs)));
            this.highDecade = Math.max(lowDecade + 1, (int) Math.ceil(Math.log10(maxMs)));
            int longestLabel = series.stream().mapToInt(s -> s.label().length()).max().orElse(0);
            int legendWidth = Math.max(180, CHAR_WIDTH * Math.max(longestLabel, Line.FLOOR.label.length()) + 50);
            this.width = LEFT + PLOT_WIDTH + LEGEND_GAP + legendWidth;
            int legendHeight = (series.size() + Line.values().length + 3) * LEGEND_ROW;
            this.height = Math.max(TOP + PLOT_HEIGHT + BOTTOM, TOP + legendHeight + 20);
        }

        static String empty() {
            int w = LEFT + PLOT_WIDTH + LEGEND_GAP;
            int h = TOP + PLOT_HEIGHT + BOTTOM;
            var out = new StringBuilder();
            open(out, w, h);
            text(out, w / 2.0, TOP + PLOT_HEIGHT / 2.0, "middle", "font-size=\"16\" fill=\"#666\"", "no data");
            return out.append("</svg>\n").toString();
        }

        String render() {
            var out = new StringBuilder();
            open(out, width, height);
            drawYGrid(out);
            drawXGrid(out);
            out.append("<rect x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(PLOT_WIDTH)
                    .append("\" height=\"").append(PLOT_HEIGHT).append("\" fill=\"none\" stroke=\"#000\"/>\n");
            drawAxisTitles(out);
            for (int i = 0; i < series.size(); i++) {
                drawSeries(out, series.get(i), colorOf(i));
            }
            drawLegend(out);
            return out.append("</svg>\n").toString();
        }

        private static void open(StringBuilder out, int w, int h) {
            out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                    .append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w).append("\" height=\"")
                    .append(h).append("\" viewBox=\"0 0 ").append(w).append(' ').append(h)
                    .append("\" font-family=\"sans-serif\" font-size=\"12\">\n")
                    .append("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
            text(out, w / 2.0, 28, "middle", "font-size=\"16\" font-weight=\"bold\"", TITLE);
        }

        private void drawYGrid(StringBuilder out) {
            for (int decade = lowDecade; decade <= highDecade; decade++) {
                double y = y(Math.pow(10, decade));
                gridLine(out, LEFT, y, LEFT + PLOT_WIDTH, y);
                text(out, LEFT - 8, y + 4, "end", "", decadeLabel(decade));
            }
        }

        private void drawXGrid(StringBuilder out) {
            long ticks = Math.round(xMax / xStep);
            for (long i = 0; i <= ticks; i++) {
                double rate = i * xStep;
                double x = x(rate);
                gridLine(out, x, TOP, x, TOP + PLOT_HEIGHT);
                text(out, x, TOP + PLOT_HEIGHT + 18, "middle", "", plain(rate));
            }
        }

        private void drawAxisTitles(StringBuilder out) {
            text(out, LEFT + PLOT_WIDTH / 2.0, TOP + PLOT_HEIGHT + 44, "middle", "", "offered rate (exec/s)");
            double x = 24;
            double y = TOP + PLOT_HEIGHT / 2.0;
            text(out, x, y, "middle", "transform=\"rotate(-90 " + num(x) + ' ' + num(y) + ")\"",
                    "latency (ms, log scale)");
        }

        /** Every series gets all four lines, even when a line has no known value, so the chart's shape is fixed. */
        private void drawSeries(StringBuilder out, Series s, String color) {
            for (Line line : Line.values()) {
                List<double[]> points = points(s, line);
                String coordinates = points.stream().map(p -> num(p[0]) + ',' + num(p[1]))
                        .collect(Collectors.joining(" "));
                out.append("<polyline points=\"").append(coordinates).append("\" ").append(line.style(line.color(color)))
                        .append("><title>").append(xml(s.label() + " " + line.label)).append("</title></polyline>\n");
                for (double[] p : points) {
                    out.append("<circle cx=\"").append(num(p[0])).append("\" cy=\"").append(num(p[1]))
                            .append("\" r=\"").append(num(line.pointRadius)).append("\" fill=\"")
                            .append(line.color(color)).append("\"/>\n");
                }
            }
        }

        private List<double[]> points(Series s, Line line) {
            List<double[]> points = new ArrayList<>();
            for (RateResult row : s.rows()) {
                double ms = line.value.applyAsDouble(row);
                if (Double.isFinite(row.offeredPerS()) && !Double.isNaN(ms) && ms != Double.POSITIVE_INFINITY) {
                    points.add(new double[] {x(row.offeredPerS()), y(ms)});
                }
            }
            return points;
        }

        private void drawLegend(StringBuilder out) {
            double x = LEFT + PLOT_WIDTH + LEGEND_GAP;
            double y = TOP + 10;
            text(out, x, y, "start", "font-weight=\"bold\"", "Series");
            for (int i = 0; i < series.size(); i++) {
                y += LEGEND_ROW;
                legendEntry(out, x, y, "fill=\"none\" stroke=\"" + colorOf(i) + "\" stroke-width=\"3\"",
                        series.get(i).label());
            }
            y += LEGEND_ROW * 2;
            text(out, x, y, "start", "font-weight=\"bold\"", "Lines");
            for (Line line : Line.values()) {
                y += LEGEND_ROW;
                legendEntry(out, x, y, line.style(line.color("#000")), line.label);
            }
        }

        private static void legendEntry(StringBuilder out, double x, double y, String style, String label) {
            out.append("<line x1=\"").append(num(x)).append("\" y1=\"").append(num(y - 4)).append("\" x2=\"")
                    .append(num(x + 30)).append("\" y2=\"").append(num(y - 4)).append("\" ").append(style).append("/>\n");
            text(out, x + 38, y, "start", "", label);
        }

        private static void gridLine(StringBuilder out, double x1, double y1, double x2, double y2) {
            out.append("<line x1=\"").append(num(x1)).append("\" y1=\"").append(num(y1)).append("\" x2=\"")
                    .append(num(x2)).append("\" y2=\"").append(num(y2)).append("\" stroke=\"#ddd\"/>\n");
        }

        private static void text(StringBuilder out, double x, double y, String anchor, String attributes, String text) {
            out.append("<text x=\"").append(num(x)).append("\" y=\"").append(num(y)).append("\" text-anchor=\"")
                    .append(anchor).append('"').append(attributes.isEmpty() ? "" : " " + attributes).append('>')
                    .append(xml(text)).append("</text>\n");
        }

        private double x(double rate) {
            return LEFT + rate / xMax * PLOT_WIDTH;
        }

        /** Log10 scale; values at or below the lowest decade (zero and negatives included) sit on it. */
        private double y(double ms) {
            double log = Math.log10(Math.max(ms, Math.pow(10, lowDecade)));
            return TOP + PLOT_HEIGHT - (log - lowDecade) / (highDecade - lowDecade) * PLOT_HEIGHT;
        }

        private static String colorOf(int seriesIndex) {
            return PALETTE.get(seriesIndex % PALETTE.size());
        }

        private static List<Series> seriesOf(List<RateResult> rows) {
            Map<List<String>, List<RateResult>> byKey = new LinkedHashMap<>();
            for (RateResult row : rows) {
                var key = Stream.of(row.workload(), row.guarantee(), row.settings())
                        .map(s -> Objects.toString(s, "")).toList();
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
            }
            return byKey.entrySet().stream()
                    .map(e -> new Series(
                            e.getKey().stream().filter(part -> !part.isBlank()).collect(Collectors.joining(" ")),
                            e.getValue().stream().sorted(Comparator.comparingDouble(RateResult::offeredPerS)).toList()))
                    .toList();
        }

        /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
        private static double niceStep(double raw) {
            double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
            double residual = raw / magnitude;
            double nice = residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10;
            return nice * magnitude;
        }

        private static String decadeLabel(int decade) {
            return BigDecimal.ONE.scaleByPowerOfTen(decade).toPlainString();
        }
    }

    /** A tick value without floating-point noise or exponent. */
    private static String plain(double value) {
        return new BigDecimal(value).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }

    /** An SVG coordinate. */
    private static String num(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    /** Escapes markup and replaces characters XML 1.0 cannot hold, so the document always parses. */
    private static String xml(String text) {
        var out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> out.appendCodePoint(isXmlChar(c) ? c : '?');
            }
        });
        return out.toString();
    }

    private static boolean isXmlChar(int c) {
        return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)
                || (c >= 0x10000 && c <= 0x10FFFF);
    }
}
