package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Deploys against a global store that never catches up: only the overlay knows what was produced; the store holds
 * what a test puts there.
 */
class FlowServiceTest {
    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final List<Set<String>> ensuredGroups = new ArrayList<>();
    /** What the read model holds: the latest revision of each flow. */
    private final List<FlowRecord> stored = new ArrayList<>();
    /** What the read model holds of every revision, in key order (for the lookups of one flow). */
    private final List<FlowRecord> storedRevisions = new ArrayList<>();
    private final FlowService flows = new FlowService(new FlowService.StoredFlows() {
        @Override
        public Optional<FlowRecord> latestFlow(String namespace, String id) {
            var revisions = flowRevisions(namespace, id, 1);
            return revisions.isEmpty() ? Optional.empty() : Optional.of(revisions.getFirst());
        }

        @Override
        public Optional<FlowRecord> flowRevision(String namespace, String id, int revision) {
            return revisionsOf(namespace, id).filter(r -> r.getRevision() == revision).findFirst();
        }

        @Override
        public List<FlowRecord> latestFlows() {
            return stored;
        }

        @Override
        public List<FlowRecord> flowRevisions(String namespace, String id, int limit) {
            List<FlowRecord> all = revisionsOf(namespace, id).toList();
            return all.subList(Math.max(0, all.size() - limit), all.size());
        }

        private Stream<FlowRecord> revisionsOf(String namespace, String id) {
            return storedRevisions.stream().filter(r -> r.getNamespace().equals(namespace) && r.getId().equals(id));
        }
    }, new FlowOverlay(), new Publisher(producer, new Topics("t."), 1_000_000), Clock.systemUTC(), ensuredGroups::add);

    @Test
    void shouldDescribeWhatAFormToResumeEachPauseTaskNeeds() throws Exception {
        // given
        var flow = new FlowParser().parse("id: f\nnamespace: ns\ntasks:\n  - id: wait\n"
                + "    type: io.kestra.plugin.core.flow.Pause\n    onResume:\n      - {id: reason, type: STRING}\n"
                + "  - {id: bare, type: io.kestra.plugin.core.flow.Pause, delay: PT1S}\n");

        // when
        var json = flows.describe(FlowMapper.toRecord(flow, Instant.EPOCH));

        // then
        assertThat(json.path("pauses")).hasSize(2);
        assertThat(json.path("pauses").get(0).path("taskId").asText()).isEqualTo("wait");
        assertThat(json.path("pauses").get(0).path("onResume").get(0).path("id").asText()).isEqualTo("reason");
        assertThat(json.path("pauses").get(1).path("onResume")).isEmpty();
    }

    @Test
    void shouldFindTheFlowsOfANamespaceAndThoseInsideItThatTheCallerMaySee() throws Exception {
        // given
        for (String namespace : List.of("company", "company.team", "company.teammates", "other")) {
            stored.add(FlowMapper.toRecord(new FlowParser().parse("id: f\nnamespace: " + namespace + "\ninputs:\n"
                    + "  - {id: n, type: INT, defaults: 3}\ntasks:\n  - {id: a, type: log, message: one}\n"),
                    Instant.EPOCH));
        }

        // when
        var found = flows.search("company.team", namespace -> true, 1, 25);
        var visible = flows.search(null, namespace -> !namespace.equals("other"), 1, 2);

        // then
        assertThat(found.path("total").asInt()).isEqualTo(1);
        var flow = found.path("results").get(0);
        assertThat(flow.path("namespace").asText()).isEqualTo("company.team");
        assertThat(flow.path("inputs").get(0).path("type").asText()).isEqualTo("INT");
        assertThat(flow.path("inputs").get(0).path("defaults").asInt()).isEqualTo(3);
        assertThat(flow.path("source").asText()).contains("namespace: company.team");
        assertThat(visible.path("total").asInt()).isEqualTo(3);
        assertThat(visible.path("results")).hasSize(2);
    }

    @Test
    void shouldNumberRevisionsAndKeepTheRevisionOfAnIdenticalSource() {
        // given
        String v1 = "id: f\nnamespace: ns\ntasks:\n  - id: a\n    type: log\n    message: one\n";
        String v2 = v1.replace("one", "two");

        // when
        var first = flows.deploy(v1, flow -> { });
        var again = flows.deploy(v1, flow -> { });
        var second = flows.deploy(v2, flow -> { });

        // then
        assertThat(first.revision()).isEqualTo(1);
        assertThat(again.revision()).isEqualTo(1);
        assertThat(second.revision()).isEqualTo(2);
        assertThat(producer.history()).extracting(ProducerRecord::topic).containsOnly("t.flows");
        assertThat(producer.history()).extracting(ProducerRecord::key).containsExactly("ns/f@00000001", "ns/f@00000002");
        assertThat(flows.latestFlow("ns", "f").revision()).as("known before the store has it").isEqualTo(2);
    }

    @Test
    void shouldMakeSureTheTaskTopicsOfTheFlowsWorkerGroupsExistBeforePublishing() {
        // given
        String yaml = "id: g\nnamespace: ns\ntasks:\n  - id: a\n    type: log\n    message: one\n"
                + "  - id: b\n    type: log\n    message: two\n    workerGroup:\n      key: gpu\n";

        // when
        flows.deploy(yaml, flow -> { });

        // then
        assertThat(ensuredGroups).containsExactly(Set.of("default", "gpu"));
    }

    @Test
    void shouldMakeSureOfEachWorkerGroupsTopicOnlyOnce() {
        // given
        flows.deploy("id: g\nnamespace: ns\ntasks:\n  - id: a\n    type: log\n    message: one\n", flow -> { });

        // when: another revision, and a flow that adds a group
        flows.deploy("id: g\nnamespace: ns\ntasks:\n  - id: a\n    type: log\n    message: two\n", flow -> { });
        flows.deploy("id: h\nnamespace: ns\ntasks:\n  - id: a\n    type: log\n    message: one\n"
                + "    workerGroup:\n      key: cpu\n", flow -> { });

        // then
        assertThat(ensuredGroups).containsExactly(Set.of("default"), Set.of("cpu"));
    }

    @Test
    void shouldRejectAnInvalidFlowWithEveryProblemAndProduceNothing() {
        // given
        String yaml = "id: f\nnamespace: ns\ntasks:\n  - id: a\n    type: nope\n  - id: b\n    type: log\n";

        // when / then
        assertThatThrownBy(() -> flows.deploy(yaml, flow -> { }))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.details()).hasSize(2);
                    assertThat(e.details().get(0)).startsWith("Unknown task type 'nope'");
                    assertThat(e.details().get(1)).isEqualTo("Missing required property 'message' at tasks[1] (task 'b')");
                });
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldAnswer404NamingAnUnknownFlow() {
        // when / then
        assertThatThrownBy(() -> flows.latestFlow("ns", "missing"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.getMessage()).isEqualTo("Flow 'ns/missing' not found");
                });
    }

    @Test
    void shouldListEveryRevisionOldestFirstWithTheDeletionsAndTheOneJustDeployed() throws Exception {
        // given: the store holds revisions 1 and 2, and 3, which deleted the flow
        storedRevisions.add(revision(1, "one"));
        storedRevisions.add(revision(2, "two"));
        storedRevisions.add(FlowMapper.deletion(storedRevisions.getLast(), Instant.EPOCH));

        // when: deployed again, and read before the store has it
        var deployed = flows.deploy(source("three"), flow -> { });
        var revisions = flows.revisions("ns", "f");

        // then
        assertThat(deployed.revision()).isEqualTo(4);
        assertThat(revisions).extracting(r -> r.path("revision").asInt()).containsExactly(1, 2, 3, 4);
        assertThat(revisions).extracting(r -> r.path("deleted").asBoolean()).containsExactly(false, false, true, false);
        assertThat(revisions.get(1).path("source").asText()).isEqualTo(source("two"));
        assertThat(revisions.get(3).path("source").asText()).isEqualTo(source("three"));
        assertThat(revisions.get(0).path("createdAt").isTextual()).isTrue();
    }

    @Test
    void shouldListARevisionThatNoLongerParsesAsItWasStored() throws Exception {
        // given: revision 1 as an older build stored it, a source this build refuses
        FlowRecord old = revision(1, "one");
        old.setSource("id: f\nnamespace: ns\ntasks: 42\n");
        storedRevisions.add(old);
        storedRevisions.add(revision(2, "two"));

        // when
        var revisions = flows.revisions("ns", "f");

        // then: both, sources as stored, nothing parsed
        assertThat(revisions).extracting(r -> r.path("source").asText()).containsExactly(old.getSource(), source("two"));
    }

    @Test
    void shouldListARevisionJustDeployedOfAFlowTheStoreDoesNotKnowYet() {
        // when
        flows.deploy(source("one"), flow -> { });

        // then
        assertThat(flows.revisions("ns", "f")).extracting(r -> r.path("revision").asInt()).containsExactly(1);
    }

    @Test
    void shouldListOnlyTheNewestHundredRevisions() throws Exception {
        // given: 150 stored revisions, and one more deployed
        for (int revision = 1; revision <= 150; revision++) {
            storedRevisions.add(revision(revision, "m" + revision));
        }
        flows.deploy(source("m151"), flow -> { });

        // when
        var revisions = flows.revisions("ns", "f");

        // then
        assertThat(revisions).extracting(r -> r.path("revision").asInt())
                .containsExactlyElementsOf(IntStream.rangeClosed(52, 151).boxed().toList());
        assertThat(FlowService.MAX_REVISIONS).isEqualTo(100);
    }

    @Test
    void shouldAnswer404ForTheRevisionsOfAnUnknownFlow() {
        // when / then
        assertThatThrownBy(() -> flows.revisions("ns", "missing"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.getMessage()).isEqualTo("Flow 'ns/missing' not found");
                });
    }

    private static String source(String message) {
        return "id: f\nnamespace: ns\ntasks:\n  - id: a\n    type: log\n    message: " + message + "\n";
    }

    private static FlowRecord revision(int revision, String message) throws Exception {
        return FlowMapper.toRecord(new FlowParser().parse(source(message)).withRevision(revision), Instant.EPOCH);
    }
}
