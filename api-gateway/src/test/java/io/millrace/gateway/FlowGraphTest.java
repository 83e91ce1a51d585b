package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.Json;
import org.junit.jupiter.api.Test;

class FlowGraphTest {
    private static final String LOG = "io.kestra.plugin.core.log.Log";

    @Test
    void shouldDrawEveryFlowableKindWithItsBranchesErrorsAndFinally() throws Exception {
        // given
        var flow = new FlowParser().parse("""
                id: every
                namespace: ns
                tasks:
                  - id: seq
                    type: io.kestra.plugin.core.flow.Sequential
                    tasks:
                      - {id: a, type: io.kestra.plugin.core.log.Log, message: m}
                    errors:
                      - {id: seq-error, type: io.kestra.plugin.core.log.Log, message: m}
                    finally:
                      - {id: seq-finally, type: io.kestra.plugin.core.log.Log, message: m}
                  - id: par
                    type: io.kestra.plugin.core.flow.Parallel
                    tasks:
                      - {id: b, type: io.kestra.plugin.core.log.Log, message: m}
                      - {id: c, type: io.kestra.plugin.core.log.Log, message: m, disabled: true}
                  - id: each
                    type: io.kestra.plugin.core.flow.ForEach
                    values: [1, 2]
                    concurrencyLimit: 0
                    tasks:
                      - {id: d, type: io.kestra.plugin.core.log.Log, message: m}
                  - id: if
                    type: io.kestra.plugin.core.flow.If
                    condition: "{{ true }}"
                    then:
                      - {id: e, type: io.kestra.plugin.core.log.Log, message: m}
                    else:
                      - {id: f, type: io.kestra.plugin.core.log.Log, message: m}
                  - id: switch
                    type: io.kestra.plugin.core.flow.Switch
                    value: "x"
                    cases:
                      x:
                        - {id: g, type: io.kestra.plugin.core.log.Log, message: m}
                      "y z":
                        - {id: h, type: io.kestra.plugin.core.log.Log, message: m}
                    defaults:
                      - {id: i, type: io.kestra.plugin.core.log.Log, message: m}
                  - id: allow
                    type: io.kestra.plugin.core.flow.AllowFailure
                    tasks:
                      - {id: j, type: io.kestra.plugin.core.execution.Fail}
                  - id: pause
                    type: io.kestra.plugin.core.flow.Pause
                    delay: PT1S
                    tasks:
                      - {id: k, type: io.kestra.plugin.core.log.Log, message: m}
                  - {id: child, type: io.kestra.plugin.core.flow.Subflow, namespace: ns, flowId: other}
                errors:
                  - {id: on-error, type: io.kestra.plugin.core.log.Log, message: m}
                finally:
                  - {id: at-last, type: io.kestra.plugin.core.log.Log, message: m}
                """);

        // when
        JsonNode graph = FlowGraph.of(flow);

        // then
        String log = "\"type\":\"" + LOG + "\"";
        String flowable = "\"type\":\"io.kestra.plugin.core.flow.";
        assertThat(graph).isEqualTo(Json.MAPPER.readTree(("""
                {"id":"every","type":"flow","namespace":"ns","revision":0,"branches":[
                  {"name":"tasks","tasks":[
                    {"id":"seq",%1$sSequential","branches":[
                      {"name":"tasks","tasks":[{"id":"a",%2$s}]},
                      {"name":"errors","tasks":[{"id":"seq-error",%2$s}]},
                      {"name":"finally","tasks":[{"id":"seq-finally",%2$s}]}]},
                    {"id":"par",%1$sParallel","branches":[
                      {"name":"tasks","parallel":true,"tasks":[{"id":"b",%2$s},{"id":"c",%2$s,"disabled":true}]}]},
                    {"id":"each",%1$sForEach","concurrencyLimit":0,"branches":[
                      {"name":"tasks","tasks":[{"id":"d",%2$s}]}]},
                    {"id":"if",%1$sIf","branches":[
                      {"name":"then","tasks":[{"id":"e",%2$s}]},
                      {"name":"else","tasks":[{"id":"f",%2$s}]}]},
                    {"id":"switch",%1$sSwitch","branches":[
                      {"name":"case x","tasks":[{"id":"g",%2$s}]},
                      {"name":"case y z","tasks":[{"id":"h",%2$s}]},
                      {"name":"defaults","tasks":[{"id":"i",%2$s}]}]},
                    {"id":"allow",%1$sAllowFailure","branches":[
                      {"name":"tasks","tasks":[{"id":"j","type":"io.kestra.plugin.core.execution.Fail"}]}]},
                    {"id":"pause",%1$sPause","branches":[
                      {"name":"tasks","tasks":[{"id":"k",%2$s}]}]},
                    {"id":"child",%1$sSubflow"}]},
                  {"name":"errors","tasks":[{"id":"on-error",%2$s}]},
                  {"name":"finally","tasks":[{"id":"at-last",%2$s}]}]}
                """).formatted(flowable, log)));
    }

    @Test
    void shouldDrawTasksSideBySideOnlyWhereTheyRunSoAndLeaveEmptyBranchesOut() throws Exception {
        // given: a ForEach runs an iteration's tasks in turn, an EachParallel each task apart, a Parallel of one at
        // a time in turn; an If without else; a Pause without tasks
        var flow = new FlowParser().parse("""
                id: lanes
                namespace: ns
                tasks:
                  - id: each
                    type: io.kestra.plugin.core.flow.ForEach
                    values: [1, 2]
                    tasks:
                      - {id: a, type: io.kestra.plugin.core.log.Log, message: m}
                  - id: apart
                    type: io.kestra.plugin.core.flow.EachParallel
                    value: [1, 2]
                    tasks:
                      - {id: b, type: io.kestra.plugin.core.log.Log, message: m}
                  - id: one-at-a-time
                    type: io.kestra.plugin.core.flow.Parallel
                    concurrent: 1
                    tasks:
                      - {id: c, type: io.kestra.plugin.core.log.Log, message: m}
                  - id: if
                    type: io.kestra.plugin.core.flow.If
                    condition: "{{ true }}"
                    then:
                      - {id: d, type: io.kestra.plugin.core.log.Log, message: m}
                  - {id: wait, type: io.kestra.plugin.core.flow.Pause, delay: PT1S}
                """);

        // when
        JsonNode tasks = FlowGraph.of(flow).path("branches").get(0).path("tasks");

        // then
        assertThat(tasks.get(0).path("concurrencyLimit").asInt()).isEqualTo(1);
        assertThat(tasks.get(0).path("branches").get(0).has("parallel")).isFalse();
        assertThat(tasks.get(1).path("branches").get(0).path("parallel").asBoolean()).isTrue();
        assertThat(tasks.get(2).path("branches").get(0).has("parallel")).isFalse();
        assertThat(tasks.get(3).path("branches")).extracting(b -> b.path("name").asText()).containsExactly("then");
        assertThat(tasks.get(4).path("branches")).isEmpty();
        assertThat(FlowGraph.of(flow).path("branches")).hasSize(1);
    }
}
