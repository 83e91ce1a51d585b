package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutionStatsTest {
    private static final Instant TO = Instant.parse("2026-11-28T01:00:00Z");
    private static final Instant FROM = TO.minusSeconds(3600);

    @Test
    void shouldCountEachMinuteByStateWithItsDurationsAndTheFlowsThatFailMost() {
        // given: newest first, as the index answers
        var stats = new ExecutionStats(FROM, TO, null, namespace -> !namespace.equals("hidden"));
        long minute = TO.minusSeconds(120).toEpochMilli(); // 00:58:00
        add(stats, "e1", "a", "etl", "FAILED", minute + 50_000, 400L);
        add(stats, "e2", "a", "etl", "SUCCESS", minute + 30_000, 100L);
        add(stats, "e3", "b", "report", "RUNNING", minute + 10_000, null);
        add(stats, "e4", "hidden", "secret", "FAILED", minute + 5_000, 50L);
        add(stats, "e5", "b", "report", "FAILED", minute - 30_000, 200L);

        // when: one before the span stops the scan
        boolean goesOn = stats.add(summary("e6", "a", "etl", "FAILED", FROM.toEpochMilli() - 1, 1L));
        JsonNode json = stats.json();

        // then
        assertThat(goesOn).isFalse();
        assertThat(json.path("minutes")).hasSize(2);
        JsonNode last = json.path("minutes").get(1);
        assertThat(last.path("minute").asText()).isEqualTo("2026-11-28T00:58:00Z");
        assertThat(last.path("counts").toString()).isEqualTo("{\"FAILED\":1,\"RUNNING\":1,\"SUCCESS\":1}");
        assertThat(last.path("p50").asText()).isEqualTo("PT0.1S"); // of 100 and 400 ms, nearest rank
        assertThat(last.path("p95").asText()).isEqualTo("PT0.4S");
        assertThat(json.path("failing").toString()).isEqualTo("[{\"namespace\":\"a\",\"flowId\":\"etl\",\"failed\":1,"
                + "\"total\":2},{\"namespace\":\"b\",\"flowId\":\"report\",\"failed\":1,\"total\":2}]");
        assertThat(json.path("truncated").asBoolean()).isFalse();
    }

    @Test
    void shouldKeepToOneNamespaceAndThoseUnderIt() {
        // given
        var stats = new ExecutionStats(FROM, TO, "a", namespace -> true);
        add(stats, "e1", "a.sub", "etl", "SUCCESS", TO.toEpochMilli() - 1_000, 10L);
        add(stats, "e2", "ab", "etl", "SUCCESS", TO.toEpochMilli() - 2_000, 10L);

        // when
        JsonNode json = stats.json();

        // then
        assertThat(json.path("minutes")).hasSize(1);
        assertThat(json.at("/minutes/0/counts/SUCCESS").asInt()).isEqualTo(1);
    }

    private static void add(ExecutionStats stats, String id, String namespace, String flowId, String state, long start,
            Long took) {
        assertThat(stats.add(summary(id, namespace, flowId, state, start, took))).isTrue();
    }

    private static ExecutionIndex.Summary summary(String id, String namespace, String flowId, String state, long start,
            Long took) {
        return new ExecutionIndex.Summary(id, namespace, flowId, state, start, Map.of(), null, null,
                took == null ? null : start + took);
    }
}
