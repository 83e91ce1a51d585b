package io.millrace.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class ReportTest {

    static RateResult row(String workload, String guarantee, String settings, double offered, double p50) {
        return new RateResult(workload, guarantee, settings, offered, offered * 0.99, p50, p50 * 2, p50 * 4, p50 * 8,
                p50 * 10, 0, 0, 1.5, Double.NaN, 4, 2, new CpuUse(120.0, Map.of()), 256.0, 10.0, 0, 0, Double.NaN, Double.NaN,
                RateResult.Breakdown.UNKNOWN);
    }

    private static RateResult measured() {
        return new RateResult("W1", "exactly_once_v2", "threads=4 linger.ms=5", 1000, 998.5, 12.345, 20, 45.6789,
                80.1, 150, 3, 2, 1.25, 9.0, 6, 2, new CpuUse(150.5, Map.of(EnginePart.EXECUTOR, 40.25, EnginePart.BROKER, 60.0,
                        EnginePart.JVM, 30.125)), 512, Double.NaN, 7, 1, 35.5, 20.25,
                new RateResult.Breakdown(1.5, 7.25, 3.125, Map.of("queued", 1.25, "to_workers", 4.5, "results_back", 2.0),
                        new BrokerRequests(14.25, 6.5, 0.125, 1.5, 2.25, Double.NaN)));
    }

    @Nested
    class Csv {

        @Test
        void shouldStartWithTheAgreedColumns() {
            // when
            String header = Report.csv(List.of()).lines().findFirst().orElseThrow();

            // then
            assertThat(header).startsWith(
                    "workload,guarantee,offered_per_s,achieved_per_s,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,failures,"
                            + "floor_p50_ms,");
            assertThat(header).isEqualTo("workload,guarantee,offered_per_s,achieved_per_s,p50_ms,p90_ms,p99_ms,"
                    + "p999_ms,max_ms,failures,floor_p50_ms,floor_eos_p50_ms,hops,task_runs,task_runs_per_s,flow_floor_ms,engine_cpu_pct,cpu_executor_pct,"
                    + "cpu_gateway_pct,cpu_workers_pct,cpu_clients_pct,cpu_broker_pct,cpu_other_pct,cpu_jvm_pct,"
                    + "engine_heap_mb,store_mb,refused,unanswered,unfinished,answer_p99_ms,start_p99_ms,queued_p50_ms,run_p50_ms,"
                    + "end_to_read_p50_ms,hop_queued_mean_ms,hop_to_workers_mean_ms,hop_waiting_for_slot_mean_ms,"
                    + "hop_running_mean_ms,hop_results_back_mean_ms,hop_outside_workers_mean_ms,hop_end_to_read_mean_ms,"
                    + "broker_requests_per_exec,broker_produce_per_exec,broker_queue_mean_ms,broker_produce_mean_ms,"
                    + "broker_end_txn_mean_ms,broker_txn_offset_commit_mean_ms,settings");
        }

        @Test
        void shouldWriteOneLinePerResultWithPlainDecimalsAndEmptyNaN() {
            // given
            var tiny = new RateResult("W2", "at_least_once", "", 0.5, 0.5, 0.000123, 1e-4, 1e7, 1e7, 1e7, 0, 0, 0.2, Double.NaN, 2, 2,
                    CpuUse.UNKNOWN, Double.NaN, Double.NaN, 0, 0, Double.NaN, Double.NaN,
                    RateResult.Breakdown.UNKNOWN);

            // when
            List<String> lines = Report.csv(List.of(measured(), tiny)).lines().toList();

            // then
            assertThat(lines).hasSize(3);
            assertThat(lines.get(1)).isEqualTo("W1,exactly_once_v2,1000.000,998.500,12.345,20.000,45.679,80.100,"
                    + "150.000,3,1.250,9.000,6,2,1997.000,14.000,150.500,40.250,0.000,0.000,0.000,60.000,0.000,30.125,512.000,,7,1,2,35.500,20.250,"
                    + "1.500,7.250,3.125,1.250,4.500,,,2.000,,,14.250,6.500,0.125,1.500,2.250,,threads=4 linger.ms=5");
            assertThat(lines.get(2)).isEqualTo("W2,at_least_once,0.500,0.500,0.000,0.000,10000000.000,10000000.000,"
                    + "10000000.000,0,0.200,,2,2,1.000,0.400,,,,,,,,,,,0,0,0,,,,,,,,,,,,,,,,,,,");
        }

        @Test
        void shouldQuoteSettingsContainingCommaOrQuote() {
            // given
            var commas = row("W1", "exactly_once_v2", "topics=a,b", 100, 5);
            var quotes = row("W1", "exactly_once_v2", "name=\"x\"", 100, 5);

            // when
            List<String> lines = Report.csv(List.of(commas, quotes)).lines().toList();

            // then
            assertThat(lines.get(1)).endsWith(",\"topics=a,b\"");
            assertThat(lines.get(2)).endsWith(",\"name=\"\"x\"\"\"");
            assertThat(lines.get(1)).startsWith("W1,exactly_once_v2,100.000,");
        }

        @Test
        void shouldKeepAQuotedNewlineInsideOneRecord() {
            // given
            var multiline = row("W1", "exactly_once_v2", "a=1\nb=2", 100, 5);

            // when
            String csv = Report.csv(List.of(multiline));

            // then
            assertThat(csv).endsWith(",\"a=1\nb=2\"\n");
        }
    }

    @Nested
    class Markdown {

        @Test
        void shouldWriteHeaderSeparatorAndOneRowPerResult() {
            // given
            List<RateResult> rows = List.of(measured(), row("W2", "at_least_once", "", 200, 3));

            // when
            List<String> lines = Report.markdown(rows).lines().takeWhile(line -> !line.isEmpty()).toList();

            // then
            assertThat(lines).hasSize(4);
            assertThat(cells(lines.get(0))).containsExactly("workload", "guarantee", "settings", "offered/s",
                    "achieved/s", "task runs/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "failures", "unfinished",
                    "refused", "unanswered", "answer p99 ms", "start p99 ms", "floor p50 ms", "EO floor p50 ms", "flow floor ms", "CPU %", "heap MiB", "store MiB");
            assertThat(cells(lines.get(1))).allMatch(cell -> cell.matches("-{3,}:?"));
            assertThat(cells(lines.get(2))).containsExactly("W1", "exactly_once_v2", "threads=4 linger.ms=5",
                    "1000.0", "998.5", "1997.0", "12.3", "20.0", "45.7", "80.1", "150.0", "3", "2", "7", "1", "35.5", "20.3", "1.25", "9.00", "14.0", "150.5", "512.0",
                    "-");
            assertThat(cells(lines.get(3))).startsWith("W2", "at_least_once", "", "200.0");
        }

        @Test
        void shouldAddATableOfCpuPerPartForTheResultsThatHaveIt() {
            // given: the second row's parts are unknown
            List<RateResult> rows = List.of(measured(), row("W2", "at_least_once", "", 200, 3));

            // when
            List<String> lines = Report.markdown(rows).lines().toList();

            // then
            int title = lines.indexOf(lines.stream().filter(line -> line.startsWith("Engine CPU")).findFirst().orElseThrow());
            List<String> cpu = lines.subList(title + 2, lines.size());
            assertThat(lines.get(title)).startsWith("Engine CPU per part, % of one core");
            assertThat(cpu).hasSize(3);
            assertThat(cells(cpu.get(0))).containsExactly("workload", "guarantee", "settings", "offered/s", "total",
                    "executor", "gateway", "workers", "clients", "broker", "other", "JIT, GC, VM");
            assertThat(cells(cpu.get(2))).containsExactly("W1", "exactly_once_v2", "threads=4 linger.ms=5", "1000.0",
                    "150.5", "40.3", "0.0", "0.0", "0.0", "60.0", "0.0", "30.1");
        }

        @Test
        void shouldAddATableOfWhereTheTimeWentForTheResultsThatKnowIt() {
            // given: the second row's breakdown is unknown
            List<RateResult> rows = List.of(measured(), row("W2", "at_least_once", "", 200, 3));

            // when
            List<String> lines = Report.markdown(rows).lines().toList();

            // then: after the latency table, its title, a blank line, then a header, a separator and one row
            int title = lines.indexOf("") + 1;
            assertThat(lines.get(title)).startsWith("Where the time went");
            assertThat(cells(lines.get(title + 2))).containsExactly("workload", "guarantee", "settings", "offered/s",
                    "p50 ms", "queued p50 ms", "run p50 ms", "end to read p50 ms", "queued mean ms", "to workers mean ms",
                    "waiting for slot mean ms", "running mean ms", "results back mean ms", "outside workers mean ms",
                    "end to read mean ms");
            assertThat(cells(lines.get(title + 4))).containsExactly("W1", "exactly_once_v2", "threads=4 linger.ms=5",
                    "1000.0", "12.3", "1.50", "7.25", "3.13", "1.25", "4.50", "-", "-", "2.00", "-", "-");
            assertThat(lines.get(title + 5)).isEmpty();
        }

        @Test
        void shouldAddATableOfTheBrokersRequestsForTheResultsThatKnowThem() {
            // given: the second row has no embedded broker
            List<RateResult> rows = List.of(measured(), row("W2", "at_least_once", "", 200, 3));

            // when
            List<String> lines = Report.markdown(rows).lines().toList();

            // then
            int title = lines.indexOf(lines.stream().filter(line -> line.startsWith("The embedded broker"))
                    .findFirst().orElseThrow());
            assertThat(cells(lines.get(title + 2))).containsExactly("workload", "guarantee", "settings", "offered/s",
                    "requests/execution", "produce/execution", "queued mean ms", "Produce mean ms", "EndTxn mean ms",
                    "TxnOffsetCommit mean ms");
            assertThat(cells(lines.get(title + 4))).containsExactly("W1", "exactly_once_v2", "threads=4 linger.ms=5",
                    "1000.0", "14.3", "6.5", "0.13", "1.50", "2.25", "-");
            assertThat(lines.get(title + 5)).isEmpty();
        }

        @Test
        void shouldLeaveOutTheCpuTableWhenNoResultHasParts() {
            // given
            List<RateResult> rows = List.of(row("W2", "at_least_once", "", 200, 3));

            // when
            List<String> lines = Report.markdown(rows).lines().toList();

            // then
            assertThat(lines).hasSize(3).noneMatch(line -> line.startsWith("Engine CPU"));
        }

        @Test
        void shouldShowTheTaskRunsOfTheAchievedExecutions() {
            // given: W5's 101 task runs an execution
            var loop = new RateResult("W5", "exactly_once_v2", "", 10, 9.5, 800, 900, 1000, 1100, 1200, 0, 0, 1.5,
                    Double.NaN, 4, 101, CpuUse.UNKNOWN, Double.NaN, Double.NaN, 0, 0, Double.NaN, Double.NaN,
                    RateResult.Breakdown.UNKNOWN);

            // when
            List<String> lines = Report.markdown(List.of(loop)).lines().toList();
            String csv = Report.csv(List.of(loop)).lines().toList().get(1);

            // then
            assertThat(cells(lines.get(2))).startsWith("W5", "exactly_once_v2", "", "10.0", "9.5", "959.5", "800.0");
            assertThat(csv).contains(",4,101,959.500,");
        }

        @Test
        void shouldShowUnknownValuesAsDash() {
            // given
            var unknown = new RateResult("W3", "exactly_once_v2", "", 10, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, Double.NaN, 10, 10, Double.NaN, Double.NaN, 3, 1, CpuUse.UNKNOWN, Double.NaN, Double.NaN, 0, 0, Double.NaN, Double.NaN,
                    RateResult.Breakdown.UNKNOWN);

            // when
            List<String> lines = Report.markdown(List.of(unknown)).lines().toList();

            // then
            assertThat(cells(lines.get(2))).containsExactly("W3", "exactly_once_v2", "", "10.0", "-", "-", "-", "-",
                    "-", "-", "-", "10", "10", "0", "0", "-", "-", "-", "-", "-", "-", "-", "-");
        }

        @Test
        void shouldEscapePipesInText() {
            // given
            var piped = row("W1", "exactly_once_v2", "a=x|y", 100, 5);

            // when
            String markdown = Report.markdown(List.of(piped));

            // then
            assertThat(markdown).contains("a=x\\|y");
        }

        private static List<String> cells(String line) {
            assertThat(line).startsWith("|").endsWith("|");
            String inner = line.substring(1, line.length() - 1);
            return Arrays.stream(inner.split("(?<!\\\\)\\|", -1)).map(String::strip).toList();
        }
    }

    @Nested
    class Svg {

        @Test
        void shouldDrawFourPolylinesPerSeriesInValidXml() throws Exception {
            // given two series of three rates, interleaved, and a third with one rate
            List<RateResult> rows = new ArrayList<>();
            for (int rate : new int[] {100, 200, 400}) {
                rows.add(row("W1", "exactly_once_v2", "", rate, rate / 10.0));
                rows.add(row("W1", "at_least_once", "", rate, rate / 20.0));
            }
            rows.add(row("W4", "exactly_once_v2", "threads=8", 50, 2));

            // when
            Document svg = parse(Report.svg(rows));

            // then
            assertThat(svg.getDocumentElement().getTagName()).isEqualTo("svg");
            NodeList polylines = svg.getElementsByTagName("polyline");
            assertThat(polylines.getLength()).isEqualTo(3 * 4);
            assertThat(pointCount((Element) polylines.item(0))).isEqualTo(3);
            assertThat(pointCount((Element) polylines.item(8))).isEqualTo(1);
            assertThat(texts(svg)).contains("Latency percentiles against offered rate", "W1 exactly_once_v2",
                    "W1 at_least_once", "W4 exactly_once_v2 threads=8", "p50", "p99", "p99.9", "Kafka floor of the flow");
        }

        @Test
        void shouldUseOneColorPerSeriesAndDashesPerPercentile() throws Exception {
            // given
            List<RateResult> rows = List.of(row("W1", "exactly_once_v2", "", 100, 5),
                    row("W1", "at_least_once", "", 100, 5));

            // when
            NodeList polylines = parse(Report.svg(rows)).getElementsByTagName("polyline");

            // then the lines run p50, p99, p99.9, floor for each series in turn
            List<Element> lines = IntStream.range(0, polylines.getLength()).mapToObj(i -> (Element) polylines.item(i))
                    .toList();
            assertThat(lines.get(0).getAttribute("stroke")).isEqualTo(lines.get(1).getAttribute("stroke"))
                    .isEqualTo(lines.get(2).getAttribute("stroke"))
                    .isNotEqualTo(lines.get(4).getAttribute("stroke"));
            assertThat(lines.get(0).getAttribute("stroke-dasharray")).isEmpty();
            assertThat(lines.get(1).getAttribute("stroke-dasharray")).isNotEmpty();
            assertThat(lines.get(2).getAttribute("stroke-dasharray")).isNotEmpty()
                    .isNotEqualTo(lines.get(1).getAttribute("stroke-dasharray"));
            assertThat(lines.get(3).getAttribute("stroke")).isEqualTo(lines.get(7).getAttribute("stroke"));
        }

        @Test
        void shouldEscapeLabels() throws Exception {
            // given
            var odd = row("W<1>", "exactly_once_v2", "tag=\"a&b\" it's", 100, 5);

            // when
            String svg = Report.svg(List.of(odd));

            // then
            assertThat(svg).contains("W&lt;1&gt; exactly_once_v2 tag=&quot;a&amp;b&quot; it&apos;s");
            assertThat(texts(parse(svg))).contains("W<1> exactly_once_v2 tag=\"a&b\" it's");
        }

        @Test
        void shouldLabelDecadesCoveringTheDataAndClampZero() throws Exception {
            // given latencies from 0 (clamped) up to 8 * 300 = 2400 ms
            List<RateResult> rows = List.of(row("W1", "exactly_once_v2", "", 100, 0),
                    row("W1", "exactly_once_v2", "", 200, 300));

            // when
            String svg = Report.svg(rows);

            // then
            assertThat(yAxisLabels(parse(svg))).containsExactly("1", "10", "100", "1000", "10000");
            assertThat(svg).doesNotContain("NaN").doesNotContain("Infinity");
        }

        @Test
        void shouldDrawASingleRow() throws Exception {
            // given
            var single = row("W1", "exactly_once_v2", "", 100, 5);

            // when
            Document svg = parse(Report.svg(List.of(single)));

            // then
            assertThat(svg.getElementsByTagName("polyline").getLength()).isEqualTo(4);
            assertThat(svg.getElementsByTagName("circle").getLength()).isEqualTo(4);
        }

        @Test
        void shouldLeaveUnknownLatenciesOut() throws Exception {
            // given
            var unknown = new RateResult("W1", "exactly_once_v2", "", 100, 0, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, 100, 100, Double.NaN, Double.NaN, 3, 2, CpuUse.UNKNOWN, Double.NaN, Double.NaN, 0, 0, Double.NaN, Double.NaN,
                    RateResult.Breakdown.UNKNOWN);

            // when
            String svg = Report.svg(List.of(unknown));

            // then
            assertThat(parse(svg).getElementsByTagName("circle").getLength()).isZero();
            assertThat(svg).doesNotContain("NaN");
        }

        @Test
        void shouldSayNoDataForNoRows() throws Exception {
            // when
            Document svg = parse(Report.svg(List.of()));

            // then
            assertThat(svg.getElementsByTagName("polyline").getLength()).isZero();
            assertThat(texts(svg)).contains("no data");
        }

        private static Document parse(String svg) throws Exception {
            var factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(UTF_8)));
        }

        private static List<String> texts(Document svg) {
            NodeList texts = svg.getElementsByTagName("text");
            return IntStream.range(0, texts.getLength()).mapToObj(i -> texts.item(i).getTextContent()).toList();
        }

        private static List<String> yAxisLabels(Document svg) {
            NodeList texts = svg.getElementsByTagName("text");
            return IntStream.range(0, texts.getLength()).mapToObj(i -> (Element) texts.item(i))
                    .filter(text -> text.getAttribute("text-anchor").equals("end"))
                    .map(Element::getTextContent).toList();
        }

        private static int pointCount(Element polyline) {
            String points = polyline.getAttribute("points").strip();
            return points.isEmpty() ? 0 : points.split(" ").length;
        }
    }

    @Test
    void shouldWriteTheThreeFiles(@TempDir Path tmp) throws Exception {
        // given
        Path dir = tmp.resolve("run-1/report");
        List<RateResult> rows = List.of(measured());

        // when
        Report.write(dir, rows);

        // then
        assertThat(Files.readString(dir.resolve("results.md"), UTF_8)).isEqualTo(Report.markdown(rows));
        assertThat(Files.readString(dir.resolve("results.csv"), UTF_8)).isEqualTo(Report.csv(rows));
        assertThat(Files.readString(dir.resolve("latency.svg"), UTF_8)).isEqualTo(Report.svg(rows))
                .contains("<polyline");
    }
}
