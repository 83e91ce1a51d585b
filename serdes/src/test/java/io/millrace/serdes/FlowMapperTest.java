package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Flow keys are stored on the flows topic: their form must not change, and revisions must sort in order. */
class FlowMapperTest {

    @Test
    void shouldPadTheRevisionToEightDigits() {
        assertThat(FlowMapper.key("company.team", "hello", 7)).isEqualTo("company.team/hello@00000007");
        assertThat(FlowMapper.key("ns", "f", 12_345_678)).isEqualTo("ns/f@12345678");
    }

    @Test
    void shouldSortRevisionsInOrderBetweenTheFlowsFirstAndLastKeys() {
        String nine = FlowMapper.key("ns", "f", 9);
        String ten = FlowMapper.key("ns", "f", 10);

        assertThat(nine).isLessThan(ten);
        assertThat(FlowMapper.firstKey("ns", "f")).isLessThan(nine);
        assertThat(FlowMapper.lastKey("ns", "f")).isGreaterThanOrEqualTo(FlowMapper.key("ns", "f", 99_999_999));
    }

    @Test
    void shouldReadARevisionThatDeletesTheFlowAsTheFlowDisabled() throws Exception {
        // given
        var flow = new io.millrace.core.flow.FlowParser().parse("id: f\nnamespace: ns\ntasks:\n  - {id: a, type: log, message: m}\n")
                .withRevision(4);
        var stored = FlowMapper.toRecord(flow, java.time.Instant.EPOCH);

        // when
        var deletion = FlowMapper.deletion(stored, java.time.Instant.EPOCH.plusSeconds(1));

        // then
        assertThat(deletion.getRevision()).isEqualTo(5);
        assertThat(deletion.getSource()).isEqualTo(stored.getSource());
        assertThat(FlowMapper.fromRecord(stored).disabled()).isFalse();
        assertThat(FlowMapper.fromRecord(deletion).disabled()).isTrue();
        assertThat(FlowMapper.fromRecord(deletion).revision()).isEqualTo(5);
    }
}
