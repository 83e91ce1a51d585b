package io.millrace.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TriggerRefusalsTest {
    private static FlowTrigger trigger(String topic) throws Exception {
        Flow flow = new FlowParser().parse("""
                id: listening
                namespace: company.team
                triggers:
                  - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topic: %s, groupId: g,
                     properties: {bootstrap.servers: 'slow.example:9092'}}
                tasks:
                  - {id: a, type: log, message: hi}
                """.formatted(topic));
        return new FlowTrigger(flow.namespace(), flow.id(), flow.triggers().getFirst());
    }

    @Test
    void shouldCheckARefusedTriggerOncePerDeclarationNotOncePerBatch() throws Exception {
        // given: a check that counts its calls (each may look names up)
        var checks = new AtomicInteger();
        var reports = new ArrayList<TriggerRefusals.Refusal>();
        var refusals = new TriggerRefusals(target -> {
            checks.incrementAndGet();
            return Optional.of("refused");
        }, reports::add);
        FlowTrigger first = trigger("orders");
        FlowTrigger changed = trigger("payments");

        // when: the flows topic is read in many batches, then the flow changes
        for (int batch = 0; batch < 100; batch++) {
            assertThat(refusals.refuses(first.key(), first)).isTrue();
        }
        assertThat(refusals.refuses(changed.key(), changed)).isTrue();
        refusals.retainAll(Set.of());
        assertThat(refusals.refuses(changed.key(), changed)).isTrue();

        // then: checked once per declaration, and again once forgotten
        assertThat(checks).hasValue(3);
        assertThat(reports).extracting(TriggerRefusals.Refusal::why)
                .isEqualTo(List.of("refused", "refused", "refused"));
    }

    @Test
    void shouldLetATriggerThatPassesRun() throws Exception {
        // given
        var refusals = new TriggerRefusals(target -> Optional.empty(), refusal -> {
            throw new AssertionError("no refusal expected");
        });
        FlowTrigger trigger = trigger("orders");

        // then
        assertThat(refusals.refuses(trigger.key(), trigger)).isFalse();
    }
}
