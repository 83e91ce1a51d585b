package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class WorkloadTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final String FOR_EACH = "io.kestra.plugin.core.flow.ForEach";
    private static final String IF = "io.kestra.plugin.core.flow.If";

    @ParameterizedTest
    @EnumSource(value = Workload.class, names = {"W1", "W2", "W3", "W4", "W8"})
    void shouldShipAFlowTheEngineParses(Workload workload) throws Exception {
        Flow flow = new FlowParser().parse(workload.source());

        assertThat(flow.id()).isEqualTo(workload.flowId());
        assertThat(flow.namespace()).isEqualTo(Workload.NAMESPACE);
        for (String called : workload.calls()) {
            assertThat(new FlowParser().parse(Workload.resource(called)).id()).isEqualTo(called);
        }
    }

    @Test
    void shouldCallAChildOfW1sShapeAndWaitForIt() throws Exception {
        // given
        JsonNode flow = YAML.readTree(Workload.W8.source());

        // then
        assertThat(flow.path("tasks")).singleElement().satisfies(call -> {
            assertThat(call.path("type").asText()).isEqualTo("io.kestra.plugin.core.flow.Subflow");
            assertThat(call.path("flowId").asText()).isEqualTo("w8-child");
            assertThat(call.path("wait").asBoolean()).isTrue();
        });
        assertThat(Workload.W8.calls()).containsExactly("w8-child");
        assertThat(YAML.readTree(Workload.resource("w8-child")).path("tasks")).hasSize(2);
        assertThat(Workload.W8.hops()).isEqualTo(Workload.W1.hops() + 2);
    }

    /**
     * The engine on this branch does not know ForEach and If yet (another branch adds them): W5 and W6 must parse, or
     * be refused only for those two types; any other problem is in the flow files. Their shape is asserted below.
     */
    @ParameterizedTest
    @EnumSource(value = Workload.class, names = {"W5", "W6"})
    void shouldShipAFlowRefusedAtMostForItsFlowableTypes(Workload workload) {
        var refused = catchThrowableOfType(FlowValidationException.class, () -> new FlowParser().parse(workload.source()));

        if (refused != null) {
            assertThat(refused.problems()).isNotEmpty().allSatisfy(problem ->
                    assertThat(problem).containsAnyOf("Unknown task type '" + FOR_EACH + "'", "Unknown task type '" + IF + "'"));
        }
    }

    @Test
    void shouldLoopOverAHundredValuesAtOnceAsKestrasLoopBenchmark() throws Exception {
        // given
        JsonNode flow = YAML.readTree(Workload.W5.source());

        // when
        JsonNode loop = flow.path("tasks").get(0);
        String values = new Expressions().render(loop.path("values").asText(), Map.of());

        // then
        assertThat(flow.path("id").asText()).isEqualTo("w5");
        assertThat(flow.path("tasks")).hasSize(1);
        assertThat(loop.path("type").asText()).isEqualTo(FOR_EACH);
        assertThat(loop.path("concurrencyLimit").asInt(-1)).isZero();
        assertThat(YAML.readValue(values, List.class)).isEqualTo(IntStream.rangeClosed(1, 100).boxed().toList());
        assertThat(loop.path("tasks")).singleElement().satisfies(child ->
                assertThat(child.path("type").asText()).isEqualTo("io.kestra.plugin.core.output.OutputValues"));
        assertThat(Workload.W5.taskRuns()).isEqualTo(1 + 100);
        assertThat(Workload.W5.hops()).isEqualTo(4);
    }

    @Test
    void shouldBranchFiveTimesAsKestrasBranchingBenchmark() throws Exception {
        // given
        JsonNode flow = YAML.readTree(Workload.W6.source());

        // when
        List<JsonNode> tasks = StreamSupport.stream(flow.path("tasks").spliterator(), false).toList();

        // then
        assertThat(flow.path("id").asText()).isEqualTo("w6");
        assertThat(flow.path("inputs").get(0).path("id").asText()).isEqualTo("condition");
        assertThat(flow.path("inputs").get(0).path("defaults").asBoolean(false)).isTrue();
        assertThat(tasks).hasSize(5).allSatisfy(branch -> {
            assertThat(branch.path("type").asText()).isEqualTo(IF);
            assertThat(branch.path("condition").asText()).isEqualTo("{{ inputs.condition }}");
            assertThat(branch.path("then")).singleElement().satisfies(log ->
                    assertThat(log.path("type").asText()).isEqualTo("io.kestra.plugin.core.log.Log"));
            assertThat(branch.path("else")).singleElement().satisfies(log ->
                    assertThat(log.path("type").asText()).isEqualTo("io.kestra.plugin.core.log.Log"));
        });
        assertThat(Workload.W6.taskRuns()).isEqualTo(5 + 5);
        assertThat(Workload.W6.hops()).isEqualTo(2 + 2 * 5);
    }
}
