package io.millrace.app;

import java.util.Locale;

/**
 * The system properties every role sets at start, before it makes any Kafka or HTTP client (docs/security.md). A value
 * the JVM was started with ({@code -D}, through {@code MILLRACE_JAVA_OPTS}) stands.
 */
final class JvmSettings {
    /**
     * Kafka's config providers ({@code ${file:...}}, {@code ${env:...}}, {@code ${directory:...}}) turned off in every
     * client: a flow's Kafka settings would otherwise read the worker's files and environment.
     */
    static final String KAFKA_CONFIG_PROVIDERS = "org.apache.kafka.automatic.config.providers";
    /**
     * Lets {@code http.Request} set the Host header: it sends each request to the address it checked, and names the
     * host in that header ({@code io.millrace.serdes.HttpTargets}). Read once, when Java's HTTP client first
     * loads.
     */
    static final String HTTP_RESTRICTED_HEADERS = "jdk.httpclient.allowRestrictedHeaders";

    private JvmSettings() {
    }

    static void apply() {
        if (System.getProperty(KAFKA_CONFIG_PROVIDERS) == null) {
            System.setProperty(KAFKA_CONFIG_PROVIDERS, "none");
        }
        String headers = System.getProperty(HTTP_RESTRICTED_HEADERS);
        if (headers == null || headers.isBlank()) {
            System.setProperty(HTTP_RESTRICTED_HEADERS, "host");
        } else if (!headers.toLowerCase(Locale.ROOT).matches("(.*,)?\\s*host\\s*(,.*)?")) {
            System.setProperty(HTTP_RESTRICTED_HEADERS, headers + ",host");
        }
    }
}
