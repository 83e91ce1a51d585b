package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Creates that wait for their flow leave the store only once handled, so a crash in between loses none. */
class DeferredCreatesTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    private final ExecutorMetrics metrics = new ExecutorMetrics(new SimpleMeterRegistry(), "millrace.");
    private final List<Boolean> storedWhileHandled = new ArrayList<>();
    private KeyValueStore<String, CommandRecord> store;
    private DeferredCreates creates;
    private boolean flowArrived;

    @BeforeEach
    void createStore() {
        context.setCurrentSystemTimeMs(NOW.toEpochMilli());
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(Names.DEFERRED_STORE), Serdes.String(),
                Topics.COMMAND_SERDE).withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        var wakeup = new Wakeup(context, Duration.ofMillis(50), millis -> { });
        var deadLetters = new CountedDeadLetters(context, MillraceConfig.defaults().executorLimits(), metrics);
        creates = new DeferredCreates(store, Duration.ofSeconds(30), wakeup, deadLetters, (command, original) -> {
            storedWhileHandled.add(store.get(command.executionId()) != null);
            if (!flowArrived) {
                creates.waitForFlow((CreateExecution) command, original, NOW);
            }
        });
    }

    @Test
    void shouldKeepAWaitingCreateUntilItIsHandledAndWhileItWaitsAgain() {
        // given
        var create = new CreateExecution("e1", "ns", "f", null, Map.of(), Map.of(), NOW);
        assertThat(creates.waitForFlow(create, CommandMapper.toRecord(create), NOW)).isTrue();

        // when: handed on while its flow is still missing
        creates.retry();

        // then: it waits again
        assertThat(store.get("e1")).isNotNull();

        // when: handed on once its flow is there
        flowArrived = true;
        creates.retry();

        // then: it was in the store while handled both times, and left it after
        assertThat(storedWhileHandled).containsExactly(true, true);
        assertThat(store.get("e1")).isNull();
    }
}
