package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.cache.LruCache;
import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.OutputsRecord;
import io.millrace.serdes.avro.StoredExecution;
import io.millrace.serdes.avro.StoredTaskRun;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** A dispatch writes the outputs it carries as the store keeps them, instead of writing them again for each lane. */
class StoredOutputsTest {
    /** Spaces no writer of ours puts there: they show the stored text went out as it is. */
    private static final String STORED = "{\"rows\": [1, 2, 3], \"name\": \"big\"}";

    private final MockProcessorContext<String, Object> context = new MockProcessorContext<>();

    @Test
    void shouldWriteTheOutputsHandedOutAsTheirStoredJsonUnderOutputsAndParents() {
        // given: a stored output, read by the variables of a lane under outputs and parents
        var stores = stores();
        stores.outputs().put(StoreBackedState.outputsKey("e1", "r1"), new OutputsRecord(STORED));
        var state = new StoreBackedState("e1", stores);
        Map<String, Object> outputs = state.outputs("r1");
        var variables = new LinkedHashMap<String, Object>();
        variables.put("inputs", Map.of("n", 1));
        variables.put("outputs", Map.of("each", Map.of("a", outputs)));
        variables.put("parents", List.of(Map.of("outputs", outputs, "taskrun", Map.of("value", "a"))));
        variables.put("vars", Map.of("copy", new LinkedHashMap<>(outputs)));

        // when
        String json = Json.write(Effects.withStoredOutputs(variables, state));

        // then: the same variables, the stored text twice, and an equal map that was not handed out written anew
        assertThat(Json.readMap(json)).isEqualTo(Json.readMap(Json.write(variables)));
        assertThat(json.split(java.util.regex.Pattern.quote(STORED), -1)).hasSize(3);
        assertThat(variables.get("outputs")).as("the variables themselves unchanged")
                .isEqualTo(Map.of("each", Map.of("a", outputs)));
    }

    @Test
    void shouldWriteOutputsPutDuringTheDecisionOnceForTheStoreAndEveryLane() {
        // given: outputs a decision put, after the stored ones were read
        var stores = stores();
        stores.outputs().put(StoreBackedState.outputsKey("e1", "r1"), new OutputsRecord(STORED));
        var state = new StoreBackedState("e1", stores);
        Map<String, Object> before = state.outputs("r1");
        state.putOutputs("r1", Map.of("name", "new"));

        // when
        String stale = Json.write(Effects.withStoredOutputs(Map.of("outputs", Map.of("t", before)), state));
        String fresh = Json.write(Effects.withStoredOutputs(Map.of("outputs", Map.of("t", state.outputs("r1"))), state));

        // then: the map read before the put is written from itself, never as the new outputs' JSON
        assertThat(Json.readMap(stale)).isEqualTo(Map.of("outputs", Map.of("t", Map.of("rows", List.of(1, 2, 3),
                "name", "big"))));
        assertThat(stale).doesNotContain(STORED);
        assertThat(Json.readMap(fresh)).isEqualTo(Map.of("outputs", Map.of("t", Map.of("name", "new"))));
    }

    private StoreBackedState.Stores stores() {
        return new StoreBackedState.Stores(store(Names.EXECUTIONS_STORE, new AvroSerde<>(StoredExecution.getClassSchema())),
                store(Names.TASK_RUNS_STORE, new AvroSerde<>(StoredTaskRun.getClassSchema())),
                store(Names.OUTPUTS_STORE, new AvroSerde<>(OutputsRecord.getClassSchema())), new LruCache<>(10));
    }

    private <V> KeyValueStore<String, V> store(String name, Serde<V> serde) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(),
                serde).withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }
}
