package io.millrace.config;

/**
 * What the operator lets flows reach beyond the safe defaults (docs/security.md).
 *
 * @param httpDeny targets an {@code http.Request} may not reach, besides the built-in ones ({@code task-http-deny})
 * @param httpAllow targets an {@code http.Request} may reach even when a rule, built-in or not, refuses them
 *     ({@code task-http-allow}): allow wins
 * @param kafkaAllowEngineCluster whether a flow's Kafka clients (Produce, Kafka triggers) may name the engine's own
 *     cluster in {@code bootstrap.servers} ({@code task-kafka-allow-engine-cluster}); its topics under the engine's
 *     prefix stay refused
 * @param engineClusterSet whether the operator set {@code task-kafka-allow-engine-cluster}: when not, standalone allows
 *     the engine's cluster ({@link #inStandalone}), its embedded broker being the only Kafka a laptop has
 * @param kafkaAllowAnyLoginModule whether a flow's {@code sasl.jaas.config} may name any login module, not only
 *     Kafka's PLAIN, SCRAM and OAUTHBEARER ones ({@code task-kafka-allow-jaas-config})
 */
public record TaskReach(HostRules httpDeny, HostRules httpAllow, boolean kafkaAllowEngineCluster,
        boolean kafkaAllowAnyLoginModule, boolean engineClusterSet) {

    public static final String HTTP_DENY = "task-http-deny";
    public static final String HTTP_ALLOW = "task-http-allow";
    public static final String KAFKA_ALLOW_ENGINE_CLUSTER = "task-kafka-allow-engine-cluster";
    public static final String KAFKA_ALLOW_JAAS_CONFIG = "task-kafka-allow-jaas-config";

    /** As standalone runs: the engine's cluster allowed unless the operator said otherwise. */
    public TaskReach inStandalone() {
        return engineClusterSet ? this : new TaskReach(httpDeny, httpAllow, true, kafkaAllowAnyLoginModule, false);
    }
}
