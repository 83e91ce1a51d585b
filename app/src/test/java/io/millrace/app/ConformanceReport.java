package io.millrace.app;

import java.util.List;
import java.util.Locale;

/** The conformance table: one row per corpus case, as plain text for the console and as Markdown. */
final class ConformanceReport {
    private static final int DEVIATION_WIDTH = 160;

    /** @param bar "must pass" or "expected to fail: why" */
    record Row(String flow, String testCase, String bar, Findings.Result result, String firstDeviation) {
    }

    private ConformanceReport() {
    }

    static String markdown(List<Row> rows) {
        var text = new StringBuilder("| flow | case | bar | result | first deviation |\n|---|---|---|---|---|\n");
        for (Row row : rows) {
            text.append("| ").append(cell(row.flow())).append(" | ").append(cell(row.testCase())).append(" | ")
                    .append(cell(row.bar())).append(" | ").append(result(row.result())).append(" | ")
                    .append(cell(shorten(row.firstDeviation()))).append(" |\n");
        }
        return text.toString();
    }

    static String plain(List<Row> rows) {
        int flow = Math.max(4, rows.stream().mapToInt(r -> r.flow().length()).max().orElse(0));
        int testCase = Math.max(4, rows.stream().mapToInt(r -> r.testCase().length()).max().orElse(0));
        String format = "%-" + flow + "s  %-" + testCase + "s  %-11s  %s%n";
        var text = new StringBuilder(String.format(format, "flow", "case", "result", "first deviation"));
        for (Row row : rows) {
            text.append(String.format(format, row.flow(), row.testCase(), result(row.result()), shorten(row.firstDeviation())));
        }
        return text.toString();
    }

    static String summary(List<Row> rows) {
        long pass = rows.stream().filter(r -> r.result() == Findings.Result.PASS).count();
        return pass + " of " + rows.size() + " cases pass";
    }

    private static String result(Findings.Result result) {
        return result.name().toLowerCase(Locale.ROOT);
    }

    private static String shorten(String text) {
        String oneLine = text.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= DEVIATION_WIDTH ? oneLine : oneLine.substring(0, DEVIATION_WIDTH - 1) + "…";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
