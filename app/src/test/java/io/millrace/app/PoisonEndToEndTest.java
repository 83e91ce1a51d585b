package io.millrace.app;

import static io.millrace.app.StandaloneEndToEndTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Topics;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a flow author or a producer can send that once stopped the engine for everyone, on the real broker: each poison
 * execution fails alone, naming the limit it reached, poison records are dead-lettered, and the other executions run,
 * before and after a restart.
 */
class PoisonEndToEndTest {
    private static final String OK = """
            id: ok
            namespace: company.team
            tasks:
              - id: hello
                type: io.kestra.plugin.core.debug.Return
                format: "hello"
            """;
    /** A task output of 800 KB that the flow's outputs print twice: 1.6 MB, over what Kafka takes in one record. */
    private static final String BIG_OUTPUTS = """
            id: big-outputs
            namespace: company.team
            tasks:
              - id: make
                type: io.kestra.plugin.core.debug.Return
                format: "{%% for i in range(1, 8000) %%}%s{%% endfor %%}"
            outputs:
              - id: twice
                type: STRING
                value: "{{ outputs.make.value }}{{ outputs.make.value }}"
            """.formatted("0123456789".repeat(10));

    /** A condition that loops 10^10 times: it once held a stream thread for hours. */
    private static final String LOOPING_RUN_IF = """
            id: looping-run-if
            namespace: company.team
            tasks:
              - id: never
                type: io.kestra.plugin.core.debug.Return
                format: "x"
                runIf: "{% set l = range(0,99999) %}{% for a in l %}{% for b in l %}{% endfor %}{% endfor %}true"
            """;

    /** A loop over a million values. */
    private static final String MILLION_VALUES = """
            id: million-values
            namespace: company.team
            tasks:
              - id: each
                type: io.kestra.plugin.core.flow.ForEach
                values: "{{ range(1, 1000000) }}"
                tasks:
                  - id: one
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ taskrun.value }}"
            """;
    /** An If whose condition backtracks catastrophically. */
    private static final String CATASTROPHIC_REGEX = """
            id: catastrophic-regex
            namespace: company.team
            tasks:
              - id: check
                type: io.kestra.plugin.core.flow.If
                condition: "{{ '\\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\\"' | jq('test(\\"(a+)+$\\")') | first }}"
                then:
                  - id: never
                    type: io.kestra.plugin.core.debug.Return
                    format: "x"
            """;
    /** A JSONata expression that calls itself for ever. */
    private static final String ENDLESS_JSONATA = """
            id: endless-jsonata
            namespace: company.team
            tasks:
              - id: transform
                type: io.kestra.plugin.transform.jsonata.TransformValue
                from: "{}"
                timeout: PT3S
                expression: "( $f := function($x){ $f($x + 1) + 1 }; $f(1) )"
            """;

    @TempDir
    Path stateDir;

    @Test
    void shouldFailEachPoisonExecutionAloneAndRunTheOthersAlsoAfterARestart() throws Exception {
        // given
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("poison", stateDir, "port", "0"), null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            send("POST", api + "/flows", OK, 200);
            send("POST", api + "/flows", BIG_OUTPUTS, 200);
            send("POST", api + "/flows", LOOPING_RUN_IF, 200);
            send("POST", api + "/flows", MILLION_VALUES, 200);
            send("POST", api + "/flows", CATASTROPHIC_REGEX, 200);
            send("POST", api + "/flows", ENDLESS_JSONATA, 200);
            JsonNode deep = send("POST", api + "/flows", nested(200), 400);

            // when: records that do not decode reach every topic the executor reads
            writeGarbage(config);
            JsonNode big = send("POST", api + "/executions/company.team/big-outputs?wait=true&timeout=PT60S", "{}", 200);

            // then: the poison execution failed, naming the limit, and the others run
            assertThat(big.at("/state/current").asText()).isEqualTo("FAILED");
            assertThat(big.path("error").asText()).startsWith("The execution's event ExecutionCompleted would take 1600")
                    .endsWith(" bytes, more than the 1000000 a record may (max-record-bytes)");
            JsonNode looping = send("POST", api + "/executions/company.team/looping-run-if?wait=true&timeout=PT60S", "{}", 200);
            assertThat(looping.at("/state/current").asText()).isEqualTo("FAILED");
            assertThat(looping.at("/taskRunList/0/error").asText()).contains("exceeds the render limit expression-max-");
            assertThat(deep.path("details").toString()).contains("nest");
            assertFailsNaming(api, "million-values", "expression-max-collection-size");
            assertFailsNaming(api, "catastrophic-regex", "exceeds the render limit expression-max-");
            assertFailsNaming(api, "endless-jsonata", "JSONata");
            assertOkRuns(api);
        }

        // when: the engine restarts on the same state
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";

            // then: nothing resumes spinning, and new executions run
            assertOkRuns(api);
        }
    }

    /** Starts the flow, waits for its end, and checks it failed with an error that names the limit. */
    private static void assertFailsNaming(String api, String flowId, String limit) throws Exception {
        JsonNode execution = send("POST", api + "/executions/company.team/" + flowId + "?wait=true&timeout=PT60S", "{}", 200);
        assertThat(execution.at("/state/current").asText()).as(flowId).isEqualTo("FAILED");
        assertThat(execution.toString()).as(flowId).contains(limit);
    }

    /** A flow whose Sequential tasks nest {@code depth} levels deep. */
    private static String nested(int depth) {
        var yaml = new StringBuilder("id: nested\nnamespace: company.team\ntasks:\n");
        String indent = "  ";
        for (int level = 0; level < depth; level++) {
            yaml.append(indent).append("- id: s").append(level).append('\n')
                    .append(indent).append("  type: io.kestra.plugin.core.flow.Sequential\n")
                    .append(indent).append("  tasks:\n");
            indent += "    ";
        }
        yaml.append(indent).append("- id: leaf\n").append(indent).append("  type: io.kestra.plugin.core.debug.Return\n")
                .append(indent).append("  format: x\n");
        return yaml.toString();
    }

    private static void assertOkRuns(String api) throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(send("POST", api + "/executions/company.team/ok?wait=true&timeout=PT60S", "{}", 200)
                    .at("/state/current").asText()).isEqualTo("SUCCESS");
        }
    }

    private static void writeGarbage(MillraceConfig config) throws Exception {
        Topics topics = Topics.of(config);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", config.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            for (String topic : new String[] {topics.commands().name(), topics.results().name(), topics.flows().name()}) {
                producer.send(new ProducerRecord<>(topic, "poison", new byte[] {(byte) 0xC3, 0x01, 7, 7, 7})).get();
                producer.send(new ProducerRecord<>(topic, "poison", null)).get();
            }
        }
    }
}
