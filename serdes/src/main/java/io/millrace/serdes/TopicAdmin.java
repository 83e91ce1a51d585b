package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Creates the topics a role needs, with the configured partitions and replication; existing ones are kept. */
public final class TopicAdmin {
    private TopicAdmin() {
    }

    /** Bootstrap servers plus the pass-through properties an admin client knows (security, timeouts), {@code admin.} ones first. */
    /** The properties of an admin client of the engine's cluster (pass-through {@code kafka.admin.*} included). */
    public static Map<String, Object> adminProperties(MillraceConfig config) {
        var props = KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.ADMIN, AdminClientConfig.configNames());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        return props;
    }

    public static void ensure(MillraceConfig config, Collection<Topics.Topic<?>> topics) {
        try (Admin admin = Admin.create(adminProperties(config))) {
            List<NewTopic> wanted = topics.stream()
                    .map(t -> new NewTopic(t.name(), Optional.of(config.partitions()), Optional.of(config.replicationFactor()))
                            .configs(t.configs()))
                    .toList();
            admin.createTopics(wanted).values().forEach((name, future) -> {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("Unable to create topic " + name + ": " + e.getCause().getMessage(), e.getCause());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while creating topic " + name, e);
                }
            });
        }
    }

    /**
     * Refuses topics that must be co-partitioned but are not: records of one key would land in
     * different stream tasks, and one task would never see the other's records for its executions.
     */
    public static void requireCoPartitioned(MillraceConfig config, Topics.Topic<?> first, Topics.Topic<?> second) {
        try (Admin admin = Admin.create(adminProperties(config))) {
            var descriptions = describe(admin, List.of(first.name(), second.name()));
            int a = descriptions.get(first.name()).partitions().size();
            int b = descriptions.get(second.name()).partitions().size();
            if (a != b) {
                throw new IllegalStateException("Expected " + first.name() + " and " + second.name()
                        + " to have the same number of partitions, but they have " + a + " and " + b
                        + "; give every role the same --partitions, or add partitions to the smaller one");
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("Unable to describe " + first.name() + " and " + second.name() + ": "
                    + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while describing topics", e);
        }
    }

    /** Describes topics, waiting up to 10 s for ones just created that the broker does not know yet. */
    private static Map<String, TopicDescription> describe(Admin admin, List<String> names)
            throws ExecutionException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return admin.describeTopics(names).allTopicNames().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
