package io.millrace.bench;

import io.millrace.serdes.Topics;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What a flow author or a Kafka producer can send that must never stop the engine for the others: flows that make it
 * compute or store without end, and records that do not decode. Each poison flow's execution ends on its own, FAILED
 * with an error naming the limit it reached ({@code limit}), or within every budget when {@code mayRun}.
 *
 * @param flowId the flow's id, in namespace {@link #NAMESPACE}
 * @param source the flow's YAML
 * @param limit  what the error of its failed execution contains: the limit's name
 * @param mayRun whether a SUCCESS is right too (it may run within every budget without harming the rest)
 */
public record Poison(String flowId, String source, String limit, boolean mayRun) {
    public static final String NAMESPACE = "company.team";

    private static final String HUNDRED_CHARACTERS = "0123456789".repeat(10);

    /** A task output of 800 KB that the flow's outputs print twice: 1.6 MB, over what Kafka takes in one record. */
    public static final Poison BIG_OUTPUTS = new Poison("big-outputs", """
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
            """.formatted(HUNDRED_CHARACTERS), "max-record-bytes", false);

    /** A condition that loops 10^10 times: it once held a stream thread for hours. */
    public static final Poison LOOPING_RUN_IF = new Poison("looping-run-if", """
            id: looping-run-if
            namespace: company.team
            tasks:
              - id: never
                type: io.kestra.plugin.core.debug.Return
                format: "x"
                runIf: "{% set l = range(0,99999) %}{% for a in l %}{% for b in l %}{% endfor %}{% endfor %}true"
            """, "expression-max-", false);

    /** A task output of 900 KB that 100 tasks read at once. */
    public static final Poison WIDE_READ = new Poison("wide-read", """
            id: wide-read
            namespace: company.team
            tasks:
              - id: make
                type: io.kestra.plugin.core.debug.Return
                format: "{%% for i in range(1, 9000) %%}%s{%% endfor %%}"
              - id: readers
                type: io.kestra.plugin.core.flow.ForEach
                values: "{{ range(1, 100) }}"
                concurrencyLimit: 0
                tasks:
                  - id: read
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ outputs.make.value | length }}"
            """.formatted(HUNDRED_CHARACTERS), "max-", true);

    /** A loop over a million values. */
    public static final Poison MILLION_VALUES = new Poison("million-values", """
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
            """, "expression-max-collection-size", false);

    /** An If whose condition backtracks catastrophically. */
    public static final Poison CATASTROPHIC_REGEX = new Poison("catastrophic-regex", """
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
            """, "expression-max-", false);

    /** A JSONata expression that calls itself for ever. */
    public static final Poison ENDLESS_JSONATA = new Poison("endless-jsonata", """
            id: endless-jsonata
            namespace: company.team
            tasks:
              - id: transform
                type: io.kestra.plugin.transform.jsonata.TransformValue
                from: "{}"
                timeout: PT3S
                expression: "( $f := function($x){ $f($x + 1) + 1 }; $f(1) )"
            """, "JSONata", false);

    /** A Sleep of an hour under a timeout of 3 s: the worker ends it at its deadline and frees the slot. */
    public static final Poison LONG_SLEEP = new Poison("long-sleep", """
            id: long-sleep
            namespace: company.team
            tasks:
              - id: sleep
                type: io.kestra.plugin.core.flow.Sleep
                duration: PT1H
                timeout: PT3S
            """, "Timeout after PT3S", false);

    /** Every poison flow that deploys, each to be started once. */
    public static List<Poison> all() {
        return List.of(BIG_OUTPUTS, LOOPING_RUN_IF, WIDE_READ, MILLION_VALUES, CATASTROPHIC_REGEX, ENDLESS_JSONATA,
                LONG_SLEEP);
    }

    /** A flow whose Sequential tasks nest {@code depth} levels deep: past the parser's depth, its deploy is refused. */
    public static String nested(int depth) {
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

    /**
     * Writes records that do not decode (bytes of no schema, and a null value) to every topic the engine's roles read:
     * commands, results, flows, and the tasks of {@code workerGroup}.
     */
    public static void writeRecords(String bootstrapServers, Topics topics, String workerGroup) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers),
                new StringSerializer(), new ByteArraySerializer())) {
            for (String topic : List.of(topics.commands().name(), topics.results().name(), topics.flows().name(),
                    topics.tasks(workerGroup).name())) {
                producer.send(new ProducerRecord<>(topic, "poison", new byte[] {(byte) 0xC3, 0x01, 7, 7, 7}))
                        .get(30, TimeUnit.SECONDS);
                producer.send(new ProducerRecord<>(topic, "poison", null)).get(30, TimeUnit.SECONDS);
            }
        }
    }
}
