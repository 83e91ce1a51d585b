package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Creates the topics a role needs, with the configured partitions and replication; existing ones are kept. */
public final class TopicAdmin {
    private static final Duration LEADERS_WAIT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(TopicAdmin.class);
    private TopicAdmin() {
    }

    /** The properties of an admin client of the engine's cluster (pass-through {@code kafka.admin.*} included). */
    public static Map<String, Object> adminProperties(MillraceConfig config) {
        var props = KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.ADMIN, AdminClientConfig.configNames());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        return props;
    }

    /**
     * Creates the missing ones of {@code topics}, then waits until each partition of those it created can take writes
     * ({@link #awaitWritable}): a producer that writes to a partition its broker has not set up yet gets
     * {@code NOT_LEADER_OR_FOLLOWER}, and an idempotent one with more requests in flight may then see its retries
     * refused as out of order until they time out (KAFKA-15591, fixed for Kafka 4.5; 4.4 still has it).
     */
    public static void ensure(MillraceConfig config, Collection<Topics.Topic<?>> topics) {
        try (Admin admin = Admin.create(adminProperties(config))) {
            warnIfNotDurable(admin, config);
            List<NewTopic> wanted = topics.stream()
                    .map(t -> new NewTopic(t.name(), Optional.of(config.partitions()), Optional.of(config.replicationFactor()))
                            .configs(topicConfigs(config, t.configs())))
                    .toList();
            var created = new ArrayList<String>();
            admin.createTopics(wanted).values().forEach((name, future) -> {
                try {
                    future.get();
                    created.add(name);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("Unable to create topic " + name + ": " + e.getCause().getMessage(), e.getCause());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while creating topic " + name, e);
                }
            });
            awaitWritable(admin, created);
        }
    }

    /** A topic's own configs, and {@code min.insync.replicas} when {@code min-insync-replicas} is set. */
    static Map<String, String> topicConfigs(MillraceConfig config, Map<String, String> own) {
        var configs = new HashMap<>(own);
        if (config.minInsyncReplicas() > 0) {
            configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(config.minInsyncReplicas()));
        }
        return configs;
    }

    /**
     * The replication of the topics a Kafka Streams application creates (changelogs, repartitions), as of the engine's
     * own: {@code replication.factor} and, when set, {@code topic.min.insync.replicas}.
     */
    public static Map<String, Object> internalTopics(MillraceConfig config) {
        var props = new HashMap<String, Object>();
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) config.replicationFactor());
        if (config.minInsyncReplicas() > 0) {
            props.put(StreamsConfig.topicPrefix(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG), config.minInsyncReplicas());
        }
        return props;
    }

    /**
     * What a role started with these replication settings on a cluster of {@code brokers} risks, or null: one replica
     * on a cluster that could keep more loses what a start's {@code 200} promised with the broker that holds it.
     */
    static String durabilityWarning(int brokers, MillraceConfig config) {
        if (brokers > 1 && config.replicationFactor() == 1) {
            return "replication-factor is 1 on a cluster of " + brokers + " brokers: the loss of one broker loses the"
                    + " commands, executions and state it holds, starts acknowledged included. Set replication-factor"
                    + " 3 and min-insync-replicas 2 (docs/kubernetes.md, Durability)";
        }
        return null;
    }

    private static void warnIfNotDurable(Admin admin, MillraceConfig config) {
        try {
            int brokers = admin.describeCluster().nodes().get(LEADERS_WAIT.toSeconds(), TimeUnit.SECONDS).size();
            String warning = durabilityWarning(brokers, config);
            if (warning != null) {
                LOG.warn(warning);
            }
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Unable to count the cluster's brokers to check the topics' replication: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits (at most {@link #LEADERS_WAIT}) until every partition of {@code topics} can take writes: each has a leader,
     * and that leader has set the partition up, which a leader in the metadata alone does not prove. Offsets are read
     * from each leader, which answers {@code NOT_LEADER_OR_FOLLOWER} (and the admin client asks again) until then. Past
     * the wait, producers' own retries take over.
     */
    public static void awaitWritable(Admin admin, Collection<String> topics) {
        if (topics.isEmpty()) {
            return;
        }
        try {
            var descriptions = describe(admin, List.copyOf(topics), LEADERS_WAIT, description -> description.partitions()
                    .stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
            Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
            descriptions.forEach((name, description) -> description.partitions()
                    .forEach(p -> partitions.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
            admin.listOffsets(partitions, new ListOffsetsOptions().timeoutMs((int) LEADERS_WAIT.toMillis())).all().get();
        } catch (ExecutionException e) {
            // past the wait, or refused: producers' own retries take over
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the leaders of " + topics, e);
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
        return describe(admin, names, Duration.ofSeconds(10), description -> true);
    }

    /**
     * Describes topics, again every 50 ms while the broker does not know one of them yet or one is not {@code done},
     * for at most {@code wait}; other errors at once.
     */
    private static Map<String, TopicDescription> describe(Admin admin, List<String> names, Duration wait,
            java.util.function.Predicate<TopicDescription> done) throws ExecutionException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> descriptions = admin.describeTopics(names).allTopicNames().get();
                if (descriptions.values().stream().allMatch(done) || System.nanoTime() > deadline) {
                    return descriptions;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.sleep(50);
        }
    }
}
