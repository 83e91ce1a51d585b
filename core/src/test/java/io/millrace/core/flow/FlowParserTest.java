package io.millrace.core.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FlowParserTest {

    private final FlowParser parser = new FlowParser();

    private List<String> problemsOf(String yaml) {
        var e = catchThrowableOfType(FlowValidationException.class, () -> parser.parse(yaml));
        assertThat(e).as("expected the flow to be rejected").isNotNull();
        assertThat(e.getMessage()).startsWith("Invalid flow: ");
        return e.problems();
    }

    @Nested
    class ValidFlows {

        @Test
        void shouldGiveTheFlowsRetryToWorkerTasksAndSubflowsWithoutTheirOwn() throws Exception {
            // when
            Flow flow = new FlowParser().parse("""
                    id: retried
                    namespace: io.millrace.tests
                    retry: {type: constant, interval: PT1S, maxAttempt: 4}
                    tasks:
                      - id: seq
                        type: sequential
                        tasks:
                          - {id: plain, type: log, message: m}
                          - {id: own, type: log, message: m, retry: {type: constant, interval: PT2S, maxAttempt: 2}}
                      - {id: call, type: subflow, namespace: io.millrace.tests, flowId: other}
                    """);

            // then
            assertThat(flow.task("plain").orElseThrow().options().retry().maxAttempt()).isEqualTo(4);
            assertThat(flow.task("own").orElseThrow().options().retry().maxAttempt()).isEqualTo(2);
            assertThat(flow.task("call").orElseThrow().options().retry().maxAttempt()).isEqualTo(4);
            assertThat(flow.task("seq").orElseThrow().options().retry()).as("not a flowable's").isNull();
        }

        @Test
        void shouldParseFullFlow() throws Exception {
            // given
            String yaml = """
                    id: full-flow
                    namespace: io.millrace.tests
                    description: everything at once
                    labels:
                      team: data
                      env: prod
                    inputs:
                      - id: name
                        type: STRING
                        defaults: world
                      - id: count
                        type: int
                        required: false
                        description: how many
                    tasks:
                      - id: hello
                        type: log
                        message: "hello {{ inputs.name }}"
                        level: INFO
                      - id: ret
                        type: io.kestra.plugin.core.debug.Return
                        format: "{{ inputs.count }}"
                        description: returns
                        workerGroup:
                          key: gpu
                      - id: skipped
                        type: sleep
                        duration: PT1S
                        disabled: true
                    errors:
                      - id: on-error
                        type: output-values
                        values:
                          reason: failed
                    finally:
                      - id: cleanup
                        type: jsonata
                        from: "{{ outputs.ret.value }}"
                        expression: "$"
                    outputs:
                      - id: result
                        type: STRING
                        value: "{{ outputs.ret.value }}"
                      - id: untyped
                        value: 42
                    """;

            // when
            Flow flow = parser.parse(yaml);

            // then
            assertThat(flow.id()).isEqualTo("full-flow");
            assertThat(flow.namespace()).isEqualTo("io.millrace.tests");
            assertThat(flow.key()).isEqualTo("io.millrace.tests/full-flow");
            assertThat(flow.revision()).isZero();
            assertThat(flow.source()).isEqualTo(yaml);
            assertThat(flow.labels()).containsOnly(Map.entry("team", "data"), Map.entry("env", "prod"));

            assertThat(flow.tasks()).extracting(TaskDef::id).containsExactly("hello", "ret", "skipped");
            assertThat(flow.tasks()).extracting(TaskDef::type)
                    .containsExactly(TaskTypes.LOG, TaskTypes.RETURN, TaskTypes.SLEEP);
            assertThat(flow.tasks()).extracting(TaskDef::disabled).containsExactly(false, false, true);
            assertThat(flow.tasks()).extracting(t -> t.options().workerGroup())
                    .containsExactly(TaskDef.DEFAULT_WORKER_GROUP, "gpu", TaskDef.DEFAULT_WORKER_GROUP);
            assertThat(((WorkerTask) flow.tasks().getFirst()).properties())
                    .containsExactly(Map.entry("message", "hello {{ inputs.name }}"), Map.entry("level", "INFO"));
            assertThat(((WorkerTask) flow.tasks().get(1)).properties()).as("common properties are not task properties")
                    .containsOnlyKeys("format");

            assertThat(flow.errors()).singleElement().satisfies(t -> {
                assertThat(t.id()).isEqualTo("on-error");
                assertThat(t.type()).isEqualTo(TaskTypes.OUTPUT_VALUES);
                assertThat(((WorkerTask) t).properties()).containsEntry("values", Map.of("reason", "failed"));
            });
            assertThat(flow.finallyTasks()).singleElement().satisfies(t -> {
                assertThat(t.id()).isEqualTo("cleanup");
                assertThat(t.type()).isEqualTo(TaskTypes.TRANSFORM_VALUE);
            });
            assertThat(flow.allTasks()).extracting(TaskDef::id)
                    .containsExactly("hello", "ret", "skipped", "on-error", "cleanup");
            assertThat(flow.task("cleanup")).isPresent();
            assertThat(flow.task("nope")).isEmpty();

            assertThat(flow.inputs()).containsExactly(
                    new InputDef("name", InputType.STRING, true, "world", null),
                    new InputDef("count", InputType.INT, false, null, "how many"));
            assertThat(flow.outputs()).containsExactly(
                    new OutputDef("result", "STRING", "{{ outputs.ret.value }}"),
                    new OutputDef("untyped", "STRING", 42));
        }

        @Test
        void shouldParseMinimalFlow() throws Exception {
            // given
            String yaml = """
                    id: minimal
                    namespace: company
                    tasks:
                      - id: only
                        type: log
                        message: hi
                    """;

            // when
            Flow flow = parser.parse(yaml);

            // then
            assertThat(flow.tasks()).hasSize(1);
            assertThat(flow.errors()).isEmpty();
            assertThat(flow.finallyTasks()).isEmpty();
            assertThat(flow.inputs()).isEmpty();
            assertThat(flow.outputs()).isEmpty();
            assertThat(flow.labels()).isEmpty();
        }

        @Test
        void shouldCanonicaliseEveryAlias() throws Exception {
            // given
            String yaml = """
                    id: aliases
                    namespace: io.millrace.tests
                    tasks:
                      - {id: a, type: log, message: m}
                      - {id: b, type: return, format: f}
                      - {id: c, type: output-values, values: {k: v}}
                      - {id: d, type: sleep, duration: PT1S}
                      - {id: e, type: jsonata, from: "{}", expression: "$"}
                    """;

            // when
            Flow flow = parser.parse(yaml);

            // then
            assertThat(flow.tasks()).extracting(TaskDef::type).containsExactly(TaskTypes.LOG, TaskTypes.RETURN,
                    TaskTypes.OUTPUT_VALUES, TaskTypes.SLEEP, TaskTypes.TRANSFORM_VALUE);
            assertThat(flow.tasks()).extracting(TaskDef::type).allMatch(TaskTypes.RUNNABLE::contains);
        }

        @Test
        void shouldAcceptLabelsAsListOfKeyValues() throws Exception {
            // given
            String yaml = """
                    id: labels-list
                    namespace: io.millrace.tests
                    labels:
                      - key: team
                        value: data
                    tasks:
                      - {id: a, type: log, message: m}
                    """;

            // when
            Flow flow = parser.parse(yaml);

            // then
            assertThat(flow.labels()).containsOnly(Map.entry("team", "data"));
        }

        @Test
        void shouldAcceptWorkerGroupAsPlainName() throws Exception {
            // given
            String yaml = """
                    id: wg
                    namespace: io.millrace.tests
                    tasks:
                      - {id: a, type: log, message: m, workerGroup: edge}
                    """;

            // when / then
            assertThat(parser.parse(yaml).tasks().getFirst().options().workerGroup()).isEqualTo("edge");
        }

        @Test
        void shouldKeepTypedPropertyValues() throws Exception {
            // given
            String yaml = """
                    id: typed
                    namespace: io.millrace.tests
                    tasks:
                      - id: values
                        type: output-values
                        values:
                          count: 3
                          ratio: 0.5
                          flag: true
                          list: [1, "two"]
                    """;

            // when
            Map<String, Object> properties = ((WorkerTask) parser.parse(yaml).tasks().getFirst()).properties();

            // then
            assertThat(properties.get("values")).isEqualTo(Map.of(
                    "count", 3, "ratio", 0.5, "flag", true, "list", List.of(1, "two")));
        }

        @Test
        void shouldAcceptATimeoutOnAnyTaskType() throws Exception {
            // given
            String yaml = """
                    id: timeouts
                    namespace: io.millrace.tests
                    tasks:
                      - {id: nap, type: sleep, duration: PT100S, timeout: PT0.0001S}
                      - {id: say, type: log, message: m, timeout: PT5M}
                    """;

            // when
            List<TaskDef> tasks = parser.parse(yaml).tasks();

            // then
            assertThat(tasks).extracting(t -> t.options().timeout())
                    .containsExactly(java.time.Duration.ofNanos(100_000), java.time.Duration.ofMinutes(5));
        }

        @Test
        void shouldParseAKafkaProduceTaskByItsKestraNameAndAlias() throws Exception {
            // given: Kestra's own example, and one by alias with the other optional properties
            String yaml = """
                    id: kafka-producer
                    namespace: company.team
                    tasks:
                      - id: kafka_producer
                        type: io.kestra.plugin.kafka.Produce
                        properties:
                          bootstrap.servers: localhost:9092
                        topic: example_topic
                        from:
                          key: "{{ execution.id }}"
                          value: "Hello, World!"
                          timestamp: "{{ execution.startDate }}"
                          headers:
                            x-header: some value
                        keySerializer: STRING
                        valueSerializer: STRING
                        serdeProperties:
                          schema.registry.url: http://localhost:8085
                      - id: rows
                        type: kafka-produce
                        properties: {bootstrap.servers: "localhost:9092"}
                        from:
                          - {key: a, value: {n: 1}, topic: other, partition: 0}
                        valueSerializer: JSON
                        transactional: false
                        keyAvroSchema: "{}"
                        valueAvroSchema: "{}"
                    """;

            // when
            List<TaskDef> tasks = parser.parse(yaml).tasks();

            // then
            assertThat(tasks).extracting(TaskDef::type).containsOnly(TaskTypes.KAFKA_PRODUCE);
            assertThat(((WorkerTask) tasks.getFirst()).properties()).containsOnlyKeys("properties", "topic", "from",
                    "keySerializer", "valueSerializer", "serdeProperties");
            assertThat(((WorkerTask) tasks.get(1)).properties()).containsEntry("transactional", false)
                    .containsEntry("from", List.of(Map.of("key", "a", "value", Map.of("n", 1), "topic", "other", "partition", 0)));
        }
    }

    @Nested
    class InvalidFlows {

        @Test
        void shouldReportLineAndColumnOfInvalidYaml() {
            // given
            String yaml = """
                    id: broken
                    namespace: io.millrace.tests
                    tasks:
                      - id: a
                        type: log
                        message: "unterminated
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).singleElement().asString()
                    .startsWith("Invalid YAML at line ")
                    .containsPattern("at line \\d+, column \\d+");
        }

        @Test
        void shouldParseTheChoicesOfSelectInputsAndRequireThem() throws Exception {
            // given
            String inputs = """
                    id: choices
                    namespace: io.millrace.tests
                    inputs:
                      - id: size
                        type: SELECT
                        values: [S, M, 42]
                        defaults: M
                      - id: extras
                        type: MULTISELECT
                        values: [milk, sugar]
                        allowCustomValue: true
                    %s
                    tasks:
                      - id: a
                        type: log
                        message: hi
                    """;

            // when
            Flow flow = parser.parse(inputs.formatted(""));

            // then
            assertThat(flow.inputs().get(0).values()).containsExactly("S", "M", "42");
            assertThat(flow.inputs().get(0).allowCustomValue()).isFalse();
            assertThat(flow.inputs().get(1).values()).containsExactly("milk", "sugar");
            assertThat(flow.inputs().get(1).allowCustomValue()).isTrue();
            // a flow stored before the values were checked may declare none: any value then
            assertThat(parser.parse(inputs.formatted("  - id: colour\n    type: ENUM\n")).inputs().get(2).values()).isNull();
            assertThat(problemsOf(inputs.formatted("  - id: colour\n    type: SELECT\n    values: [red]\n    defaults: blue\n")))
                    .containsExactly("Expected 'inputs[2].defaults' to be among its values [red], but was blue");
            assertThat(problemsOf(inputs.formatted("  - id: colour\n    type: SELECT\n    values: []\n"))).singleElement()
                    .asString().endsWith("but found an empty list");
            assertThat(problemsOf(inputs.formatted("  - id: colour\n    type: SELECT\n    values: [[red]]\n"))).singleElement()
                    .asString().endsWith("but found array");
        }

        @Test
        void shouldReportLineOfBadIndentation() {
            // given: line 3 is indented as if it belonged to 'namespace'
            String yaml = "id: broken\nnamespace: io.millrace.tests\n  tasks: []\n";

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).singleElement().asString().contains("Invalid YAML at line 3, column");
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "   ", "\n\n"})
        void shouldRejectEmptyBody(String yaml) {
            // when / then
            assertThat(problemsOf(yaml)).singleElement().asString().contains("body is empty");
        }

        @Test
        void shouldRejectBodyThatIsNotAMapping() {
            // when / then
            assertThat(problemsOf("- just\n- a list\n")).singleElement().asString()
                    .contains("Expected the flow to be a YAML mapping, but found array");
        }

        @Test
        void shouldRejectBodyWithOnlyAComment() {
            // when / then
            assertThat(problemsOf("# nothing here\n")).singleElement().asString()
                    .startsWith("Expected the flow to be a YAML mapping");
        }

        @Test
        void shouldNameUnknownTaskTypeAndWhereItIs() {
            // given
            String yaml = """
                    id: unknown-type
                    namespace: io.millrace.tests
                    tasks:
                      - {id: a, type: log, message: m}
                      - {id: b, type: io.kestra.plugin.scripts.shell.Commands, commands: [ls]}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).singleElement().asString()
                    .contains("Unknown task type 'io.kestra.plugin.scripts.shell.Commands'")
                    .contains("tasks[1] (task 'b').type")
                    .contains(TaskTypes.LOG)
                    .contains("aliases:");
        }

        @Test
        void shouldNameMissingIdAndType() {
            // given
            String yaml = """
                    namespace: io.millrace.tests
                    tasks:
                      - {id: a, type: log, message: m}
                      - {type: log, message: m}
                      - {id: c}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).containsExactlyInAnyOrder(
                    "Missing required property 'id'",
                    "Missing required property 'tasks[1].id'",
                    "Missing required property 'tasks[2].type'");
        }

        @Test
        void shouldNameMissingRequiredTaskProperty() {
            // given
            String yaml = """
                    id: missing-property
                    namespace: io.millrace.tests
                    tasks:
                      - {id: a, type: log, message: m}
                      - {id: b, type: jsonata, from: "{}"}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).containsExactly("Missing required property 'expression' at tasks[1] (task 'b')");
        }

        @Test
        void shouldNameDuplicateTaskIdsAcrossSections() {
            // given
            String yaml = """
                    id: duplicates
                    namespace: io.millrace.tests
                    tasks:
                      - {id: a, type: log, message: m}
                      - {id: a, type: log, message: m}
                    finally:
                      - {id: a, type: log, message: m}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).containsExactly(
                    "Expected task ids to be unique, but 'a' at tasks[1] is used twice",
                    "Expected task ids to be unique, but 'a' at finally[0] is used twice");
        }

        @Test
        void shouldNameUnknownTaskProperty() {
            // given
            String yaml = """
                    id: unknown-property
                    namespace: io.millrace.tests
                    tasks:
                      - {id: a, type: log, message: m}
                    errors:
                      - {id: b, type: return, format: f, retries: 3}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).containsExactly("Unknown or unsupported property 'retries' at errors[0] (task 'b')");
        }

        @Test
        void shouldNameWhatAKafkaProduceTaskLacks() {
            // given
            String yaml = """
                    id: kafka-producer
                    namespace: company.team
                    tasks:
                      - {id: p, type: kafka-produce, topic: t, acks: all}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).containsExactlyInAnyOrder("Unknown or unsupported property 'acks' at tasks[0] (task 'p')",
                    "Missing required property 'properties' at tasks[0] (task 'p')",
                    "Missing required property 'from' at tasks[0] (task 'p')");
        }

        @Test
        void shouldNameATimeoutThatIsNotAPositiveDuration() {
            // given
            String yaml = """
                    id: bad-timeouts
                    namespace: io.millrace.tests
                    tasks:
                      - {id: a, type: log, message: m, timeout: 10s}
                      - {id: b, type: log, message: m, timeout: 5}
                      - {id: c, type: log, message: m, timeout: PT0S}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).containsExactly(
                    "Expected timeout at tasks[0] (task 'a') to be a positive ISO-8601 duration such as PT5M, but found \"10s\"",
                    "Expected timeout at tasks[1] (task 'b') to be a positive ISO-8601 duration such as PT5M, but found 5",
                    "Expected timeout at tasks[2] (task 'c') to be a positive ISO-8601 duration such as PT5M, but found \"PT0S\"");
        }

        @Test
        void shouldNameUnknownRootProperty() {
            // given
            String yaml = """
                    id: unknown-root
                    namespace: io.millrace.tests
                    retry: {type: constant, interval: PT1S, maxAttempt: 2}
                    sla: []
                    tasks:
                      - {id: a, type: log, message: m}
                    """;

            // when / then
            assertThat(problemsOf(yaml)).containsExactly("Unknown or unsupported property 'sla' at the root of the flow");
        }

        @ParameterizedTest
        @ValueSource(strings = {"Io.Millrace", "io millrace", "-io", "io/millrace", "ÿ"})
        void shouldRejectBadNamespace(String namespace) {
            // given
            String yaml = "id: ns\nnamespace: \"" + namespace + "\"\ntasks:\n  - {id: a, type: log, message: m}\n";

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).singleElement().asString()
                    .startsWith("Expected 'namespace' to match")
                    .endsWith("but was '" + namespace + "'");
        }

        @Test
        void shouldRejectBadIds() {
            // given
            String yaml = """
                    id: "bad id"
                    namespace: io.millrace.tests
                    tasks:
                      - {id: "also bad", type: log, message: m}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).hasSize(2);
            assertThat(problems.get(0)).startsWith("Expected 'id' to match").endsWith("but was 'bad id'");
            assertThat(problems.get(1)).startsWith("Expected the id of tasks[0] to match").endsWith("but was 'also bad'");
        }

        @Test
        void shouldRequireAtLeastOneTask() {
            // given
            String missing = "id: f\nnamespace: io.millrace.tests\n";
            String empty = "id: f\nnamespace: io.millrace.tests\ntasks: []\n";
            String notAList = "id: f\nnamespace: io.millrace.tests\ntasks: hello\n";

            // when / then
            assertThat(problemsOf(missing)).containsExactly("Expected 'tasks' to list at least one task, but it is missing");
            assertThat(problemsOf(empty)).singleElement().asString().contains("non-empty list of tasks, but found array");
            assertThat(problemsOf(notAList)).singleElement().asString().contains("but found string");
        }

        @Test
        void shouldRejectTaskThatIsNotAMapping() {
            // given
            String yaml = "id: f\nnamespace: io.millrace.tests\ntasks:\n  - just-a-string\n";

            // when / then
            assertThat(problemsOf(yaml)).containsExactly("Expected tasks[0] to be a task mapping, but found string");
        }

        @Test
        void shouldRejectBadWorkerGroup() {
            // given
            String yaml = "id: f\nnamespace: io.millrace.tests\ntasks:\n  - {id: a, type: log, message: m, workerGroup: {name: x}}\n";

            // when / then
            assertThat(problemsOf(yaml)).singleElement().asString().startsWith("Expected workerGroup at tasks[0] (task 'a')");
        }

        @Test
        void shouldNameInputAndOutputProblems() {
            // given
            String yaml = """
                    id: io-problems
                    namespace: io.millrace.tests
                    inputs:
                      - id: a
                        type: STRING
                      - id: a
                        type: STRING
                      - id: b
                        type: COLOR
                      - type: INT
                    tasks:
                      - {id: t, type: log, message: m}
                    outputs:
                      - id: o
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).containsExactlyInAnyOrder(
                    "Expected input ids to be unique, but 'a' is declared twice",
                    "Unknown input type 'COLOR' at inputs[2].type",
                    "Missing required property 'inputs[3].id'",
                    "Missing required property 'value' at outputs[0]");
        }

        @Test
        void shouldReportEveryProblemAtOnce() {
            // given
            String yaml = """
                    id: many
                    namespace: Bad
                    tasks:
                      - {id: a, type: nope}
                      - {id: b, type: log}
                      - {id: c, type: log, message: m, colour: red}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            assertThat(problems).hasSize(4);
            assertThat(String.join("\n", problems))
                    .contains("'namespace'")
                    .contains("tasks[0]")
                    .contains("tasks[1]")
                    .contains("tasks[2]");
        }
    }

    @Nested
    class Triggers {
        @Test
        void shouldParseKafkaAndWebhookTriggersWithTheirLabelsAndProperties() throws Exception {
            // given: the seed benchmark's trigger, and a webhook by its older type name
            String yaml = """
                    id: triggered
                    namespace: company.team
                    triggers:
                      - id: kafka-logs
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: test_kestra
                        properties:
                          bootstrap.servers: localhost:9092
                        groupId: myGroup
                        valueDeserializer: JSON
                        onSerdeError: {type: DLQ, topic: bad_orders}
                      - id: hook
                        type: io.kestra.core.models.triggers.types.Webhook
                        key: s3cr3t-0123456789
                        disabled: true
                        labels: {source: web}
                    tasks:
                      - {id: a, type: log, message: "{{ trigger.value }}"}
                    """;

            // when
            Flow flow = parser.parse(yaml);

            // then
            assertThat(flow.triggers()).extracting(TriggerDef::id, TriggerDef::type, TriggerDef::disabled).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("kafka-logs", TriggerTypes.KAFKA_REALTIME, false),
                    org.assertj.core.groups.Tuple.tuple("hook", TriggerTypes.WEBHOOK, true));
            TriggerDef kafka = flow.triggers().getFirst();
            assertThat(kafka.text("topic")).isEqualTo("test_kestra");
            assertThat(kafka.properties().get("properties")).isEqualTo(Map.of("bootstrap.servers", "localhost:9092"));
            assertThat(kafka.properties()).doesNotContainKeys("id", "type");
            assertThat(flow.triggers().getLast().labels()).containsExactly(Map.entry("source", "web"));
            assertThat(flow.triggers().getLast().text("key")).isEqualTo("s3cr3t-0123456789");
        }

        @Test
        void shouldAcceptAvroWithTheSchemaRegistryItsSerdePropertiesName() throws Exception {
            // given: Confluent's names for the registry and its credentials
            String yaml = """
                    id: avro-orders
                    namespace: company.team
                    triggers:
                      - id: orders
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: orders
                        properties: {bootstrap.servers: "localhost:9092"}
                        groupId: g
                        keyDeserializer: STRING
                        valueDeserializer: avro
                        serdeProperties:
                          schema.registry.url: https://registry.example.com:8081/base
                          basic.auth.credentials.source: USER_INFO
                          basic.auth.user.info: "reader:s3cr:et"
                    tasks:
                      - {id: a, type: log, message: "{{ trigger.value }}"}
                    """;

            // when
            Flow flow = parser.parse(yaml);

            // then
            assertThat(flow.triggers().getFirst().properties().get("serdeProperties")).isEqualTo(Map.of(
                    "schema.registry.url", "https://registry.example.com:8081/base",
                    "basic.auth.credentials.source", "USER_INFO",
                    "basic.auth.user.info", "reader:s3cr:et"));
        }

        @Test
        void shouldNameWhatIsWrongWithTheSchemaRegistryOfAnAvroTrigger() {
            // given: no registry; a registry that is not http(s); credentials in the URL; auth Millrace does not send
            String yaml = """
                    id: bad-avro
                    namespace: io.millrace.tests
                    triggers:
                      - id: none
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: a
                        properties: {bootstrap.servers: "localhost:9092"}
                        groupId: g
                        keyDeserializer: AVRO
                      - id: ftp
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: a
                        properties: {bootstrap.servers: "localhost:9092"}
                        groupId: g
                        valueDeserializer: AVRO
                        serdeProperties: {schema.registry.url: "ftp://registry:21", basic.auth.user.info: "nopassword"}
                      - id: inline
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: a
                        properties: {bootstrap.servers: "localhost:9092"}
                        groupId: g
                        valueDeserializer: AVRO
                        serdeProperties:
                          schema.registry.url: "http://user:pw@registry:8081"
                          basic.auth.credentials.source: SASL_INHERIT
                      - id: json
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: a
                        properties: {bootstrap.servers: "localhost:9092"}
                        groupId: g
                        valueDeserializer: JSON
                    tasks:
                      - {id: a, type: log, message: m}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then: each is named where it is; a trigger without AVRO needs no registry
            assertThat(problems).containsExactlyInAnyOrder(
                    "Expected triggers[0] (trigger 'none').serdeProperties to name the schema registry of AVRO records as "
                            + "'schema.registry.url'",
                    "Expected triggers[1] (trigger 'ftp').serdeProperties.schema.registry.url to be one http(s) URL, but was "
                            + "'ftp://registry:21'",
                    "Expected triggers[1] (trigger 'ftp').serdeProperties.basic.auth.user.info to be 'user:password'",
                    "Expected triggers[2] (trigger 'inline').serdeProperties.schema.registry.url without credentials: give "
                            + "them as basic.auth.user.info",
                    "Unsupported basic.auth.credentials.source 'SASL_INHERIT' at triggers[2] (trigger 'inline')"
                            + ".serdeProperties; supported: USER_INFO");
        }

        @Test
        void shouldNameEveryProblemOfEachTriggerAndWhereItIs() {
            // given
            String yaml = """
                    id: bad-triggers
                    namespace: io.millrace.tests
                    triggers:
                      - id: both
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: a
                        topicPattern: "b.*"
                        properties: {bootstrap.servers: "localhost:9092"}
                        groupId: g
                        valueDeserializer: PROTOBUF
                        onSerdeError: {type: DLQ}
                      - id: nogroup
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: a
                        properties: {bootstrap.servers: "localhost:9092"}
                        pollDuration: PT1S
                      - id: hook
                        type: io.kestra.plugin.core.trigger.Webhook
                        key: "a/b"
                        wait: "yes"
                      - id: hook
                        type: io.kestra.plugin.core.trigger.Webhook
                        key: k
                      - id: cron
                        type: io.kestra.plugin.core.trigger.Schedule
                        cron: "61 * * * *"
                        timezone: Mars/Olympus
                        recoverMissedSchedules: SOME
                      - id: flows
                        type: io.kestra.plugin.core.trigger.Flow
                        states: [SUCCESS, DONE]
                        conditions:
                          - type: io.kestra.plugin.core.condition.ExecutionFlow
                            namespace: ns
                          - type: io.kestra.plugin.core.condition.DayWeek
                      - id: what
                        type: io.example.Nope
                    tasks:
                      - {id: a, type: log, message: m}
                    """;

            // when
            List<String> problems = problemsOf(yaml);

            // then
            String cron = "Invalid cron expression '61 * * * *' at triggers[4] (trigger 'cron').cron: ";
            assertThat(problems).filteredOn(p -> p.startsWith(cron)).singleElement().asString().contains("61");
            assertThat(problems).filteredOn(p -> !p.startsWith(cron)).containsExactlyInAnyOrder(
                    "Expected exactly one of 'topic' and 'topicPattern' at triggers[0] (trigger 'both')",
                    "Unsupported valueDeserializer 'PROTOBUF' at triggers[0] (trigger 'both'); supported: "
                            + new java.util.TreeSet<>(TriggerTypes.DESERIALIZERS),
                    "Expected triggers[0] (trigger 'both').onSerdeError.topic, the dead-letter topic, with type DLQ",
                    "Unknown or unsupported property 'pollDuration' at triggers[1] (trigger 'nogroup')",
                    "Missing required property 'groupId' at triggers[1] (trigger 'nogroup')",
                    "Expected triggers[2] (trigger 'hook').key to be 1 to 256 characters without '/'",
                    "Expected triggers[3] (trigger 'hook').key to have at least 16 characters (it is the webhook's only"
                            + " credential; e.g. openssl rand -hex 16), but it has 1",
                    "Expected triggers[2] (trigger 'hook').wait to be true or false",
                    "Expected trigger ids to be unique, but 'hook' is declared twice",
                    "Unknown timezone 'Mars/Olympus' at triggers[4] (trigger 'cron').timezone",
                    "Expected triggers[4] (trigger 'cron').recoverMissedSchedules to be ALL, LAST or NONE",
                    "Unknown state 'DONE' at triggers[5] (trigger 'flows').states",
                    "Expected 'namespace' and 'flowId' at triggers[5] (trigger 'flows').conditions[0]",
                    "Unsupported condition type 'io.kestra.plugin.core.condition.DayWeek' at triggers[5] (trigger 'flows')"
                            + ".conditions[1]; supported: ExecutionFlow, ExecutionStatus, ExecutionNamespace, ExecutionLabels "
                            + "(io.kestra.plugin.core.condition)",
                    "Unknown trigger type 'io.example.Nope' at triggers[6] (trigger 'what').type; known: "
                            + new java.util.TreeSet<>(TriggerTypes.SPECS.keySet()));
        }
    }
}
