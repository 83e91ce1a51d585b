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

            // when: records that do not decode reach every topic the executor reads
            writeGarbage(config);
            JsonNode big = send("POST", api + "/executions/company.team/big-outputs?wait=true&timeout=PT60S", "{}", 200);

            // then: the poison execution failed, naming the limit, and the others run
            assertThat(big.at("/state/current").asText()).isEqualTo("FAILED");
            assertThat(big.path("error").asText()).startsWith("The execution's event ExecutionCompleted would take 1600")
                    .endsWith(" bytes, more than the 1000000 a record may (max-record-bytes)");
            JsonNode looping = send("POST", api + "/executions/company.team/looping-run-if?wait=true&timeout=PT60S", "{}", 200);
            assertThat(looping.at("/state/current").asText()).isEqualTo("FAILED");
            assertThat(looping.at("/taskRunList/0/error").asText()).contains("expression-max-steps (1000000)");
            assertOkRuns(api);
        }

        // when: the engine restarts on the same state
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";

            // then: nothing resumes spinning, and new executions run
            assertOkRuns(api);
        }
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
