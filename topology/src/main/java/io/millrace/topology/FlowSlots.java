package io.millrace.topology;

import io.millrace.core.command.SlotAnswer;
import io.millrace.core.command.SlotCommand;
import io.millrace.core.concurrency.SlotKeeper;
import io.millrace.core.concurrency.Slots;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The concurrency slots of the flows whose key hashes to this stream task ({@link Names#SLOTS_STORE}, one JSON record
 * per flow): decides a slot command ({@link SlotKeeper}), stores the slots and sends the answers to the executions on
 * the commands topic, in the same transaction under exactly-once. A command that cannot be decided is a dead letter.
 */
final class FlowSlots {
    private final KeyValueStore<String, byte[]> store;
    private final SlotKeeper keeper;
    private final ProcessorContext<String, Object> context;
    private final CountedDeadLetters deadLetters;

    FlowSlots(KeyValueStore<String, byte[]> store, int maxQueued, ProcessorContext<String, Object> context,
            CountedDeadLetters deadLetters) {
        this.store = store;
        this.keeper = new SlotKeeper(maxQueued);
        this.context = context;
        this.deadLetters = deadLetters;
    }

    void handle(SlotCommand command, SpecificRecord original) {
        try {
            SlotKeeper.Outcome outcome = keeper.decide(read(command.flowKey()), command);
            var answers = new ArrayList<Record<String, Object>>();
            long now = context.currentSystemTimeMs();
            for (SlotAnswer answer : outcome.answers()) {
                CommandRecord record = CommandMapper.toRecord(answer);
                answers.add(new Record<>(answer.key(), new Encoded(record, Topics.COMMAND_SERDE.encode(record)), now));
            }
            if (outcome.slots().unused()) {
                store.delete(command.flowKey());
            } else {
                store.put(command.flowKey(), Json.MAPPER.writeValueAsBytes(outcome.slots()));
            }
            answers.forEach(answer -> context.forward(answer, Names.COMMANDS_SINK));
        } catch (IOException | RuntimeException | Error e) {
            HandlingFailures.rethrowIfFatal(e);
            deadLetters.send(command.flowKey(), "Failed handling " + command.getClass().getSimpleName() + " for flow "
                    + command.flowKey() + ": " + e, original, DeadLetterMeters.Reason.INTERNAL_ERROR);
        }
    }

    private Slots read(String flowKey) {
        byte[] stored = store.get(flowKey);
        if (stored == null) {
            return Slots.EMPTY;
        }
        try {
            return Json.MAPPER.readValue(stored, Slots.class);
        } catch (IOException e) {
            throw new UncheckedIOException("The slots of flow " + flowKey + " do not decode", e);
        }
    }
}
