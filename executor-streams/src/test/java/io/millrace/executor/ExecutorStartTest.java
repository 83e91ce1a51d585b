package io.millrace.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecutorStartTest {
    @TempDir
    Path stateDir;

    @Test
    void shouldRefuseToStartWhenCommandsAndResultsAreNotCoPartitioned() {
        // given: results created by a worker with another partition count
        String prefix = "start" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = config(prefix, "4");
        TopicAdmin.ensure(config(prefix, "2"), List.of(Topics.of(config).results()));

        // when / then
        assertThatThrownBy(() -> Executor.start(config, new SimpleMeterRegistry()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(prefix + "commands and " + prefix + "results to have the same number of partitions")
                .hasMessageContaining("4 and 2");
    }

    @Test
    void shouldStayInTheGroupOnCloseWhenAStaticMember() throws Exception {
        // given: an executor with a static member id, as the Helm chart starts it (the pod's name)
        String prefix = "static" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = config(prefix, "2", Map.of("kafka.group.instance.id", "millrace-executor-0",
                "stream-threads", "1"));
        Executor executor = Executor.start(config, new SimpleMeterRegistry());
        assertThat(executor.awaitRunning(Duration.ofSeconds(60))).isTrue();

        // when
        executor.close();

        // then: it is still a member, so a restart within the session timeout needs no rebalance
        assertThat(members(prefix + "executor")).extracting(MemberDescription::groupInstanceId)
                .containsExactly(Optional.of("millrace-executor-0-1"));
    }

    @Test
    void shouldLeaveTheGroupOnCloseWhenADynamicMember() throws Exception {
        // given
        String prefix = "dynamic" + UUID.randomUUID().toString().substring(0, 8) + ".";
        Executor executor = Executor.start(config(prefix, "2", Map.of("stream-threads", "1")), new SimpleMeterRegistry());
        assertThat(executor.awaitRunning(Duration.ofSeconds(60))).isTrue();

        // when
        executor.close();

        // then: the others take its partitions at once
        assertThat(members(prefix + "executor")).isEmpty();
    }

    @Test
    void shouldStartAfreshByItselfOnFlowsStateTheTopicNoLongerHolds() throws Exception {
        // given: an executor read two flow revisions into executor-flows, then the flows topic was deleted. A static
        // member, as the Helm chart runs it: a dynamic one's fresh client would wait out the failed one's session
        // (Kafka Streams stops a failed client without leaving the group)
        String prefix = "stale" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = config(prefix, "1", Map.of("stream-threads", "1",
                "kafka.group.instance.id", "millrace-executor-0"));
        String flows = Topics.of(config).flows().name();
        try (Executor executor = Executor.start(config, new SimpleMeterRegistry())) {
            assertThat(executor.awaitRunning(Duration.ofSeconds(60))).isTrue();
            try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers",
                    config.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
                for (int revision = 1; revision <= 2; revision++) {
                    producer.send(new ProducerRecord<>(flows, "ns/f@0000000" + revision, Topics.FLOW_SERDE.encode(
                            new FlowRecord("ns", "f", revision, "id: f", Instant.EPOCH, false)))).get();
                }
            }
            Thread.sleep(500); // read by the global thread, and its offsets stored at the next commit
        }
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", config.bootstrapServers()))) {
            admin.deleteTopics(List.of(flows)).all().get();
            while (admin.listTopics().names().get().contains(flows)) {
                Thread.sleep(100);
            }
        }

        // when: it starts again (and makes the flows topic again, empty)
        var registry = new SimpleMeterRegistry();
        try (Executor executor = Executor.start(config, registry)) {

            // then: running again by itself, the reset counted
            assertThat(executor.awaitRunning(Duration.ofSeconds(90))).isTrue();
            assertThat(registry.get("millrace.state.resets").tag("role", "executor").counter().count()).isEqualTo(1.0);
            assertThat(executor.isAlive()).isTrue();
        }
    }

    private static List<MemberDescription> members(String group) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", EmbeddedKafkaBroker.shared().bootstrapServers()))) {
            return List.copyOf(admin.describeConsumerGroups(List.of(group)).all().get().get(group).members());
        }
    }

    private MillraceConfig config(String prefix, String partitions) {
        return config(prefix, partitions, Map.of());
    }

    private MillraceConfig config(String prefix, String partitions, Map<String, String> more) {
        var settings = new HashMap<>(Map.of("bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(),
                "topic-prefix", prefix, "partitions", partitions, "state-dir", stateDir.toString()));
        settings.putAll(more);
        return ConfigLoader.load(Map.of(), settings, null);
    }
}
