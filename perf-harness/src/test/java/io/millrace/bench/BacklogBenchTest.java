package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.TriggerDef;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BacklogBenchTest {
    @Test
    void shouldDeployKestrasFlowReadingItsTopicFromTheStartWithTheTriggerOffThenOn() throws Exception {
        // when
        Flow off = new FlowParser().parse(BacklogBench.w7("broker:9092", "events-1", "group-1", true));
        Flow on = new FlowParser().parse(BacklogBench.w7("broker:9092", "events-1", "group-1", false));

        // then
        TriggerDef trigger = off.triggers().getFirst();
        assertThat(trigger.disabled()).isTrue();
        assertThat(on.triggers().getFirst().disabled()).isFalse();
        assertThat(trigger.properties()).containsEntry("topic", "events-1").containsEntry("groupId", "group-1")
                .containsEntry("properties", Map.of("bootstrap.servers", "broker:9092", "auto.offset.reset", "earliest"));
        assertThat(on.tasks()).hasSize(2);
    }

    @Test
    void shouldTakeTheNearestRankPercentile() {
        var sorted = List.of(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0);

        assertThat(BacklogBench.percentile(sorted, 50)).isEqualTo(5.0);
        assertThat(BacklogBench.percentile(sorted, 99)).isEqualTo(10.0);
        assertThat(BacklogBench.percentile(sorted, 100)).isEqualTo(10.0);
        assertThat(BacklogBench.percentile(List.of(), 50)).isNaN();
    }
}
