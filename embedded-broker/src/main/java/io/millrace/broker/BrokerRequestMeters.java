package io.millrace.broker;

import com.yammer.metrics.core.Histogram;
import com.yammer.metrics.core.MetricName;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;

/**
 * The embedded broker's request metrics as meters, so that the standalone engine's {@code /metrics} shows where a
 * request's time goes on its broker: for each request type, how many the broker answered and the time they took in
 * all ({@code millrace.broker.request}), waiting for a request handler thread ({@code .queue}) and waiting on others
 * once handled ({@code .remote}: a fetch's long poll, a produce or offset commit waiting for its transaction's
 * verification, a transaction's markers). Read from the broker's own counters at each scrape; bind after the broker
 * started, which registers every request type's counters. Kafka keeps them in one registry per JVM, shared by every
 * broker in it, and a broker's close takes them out of it: bind with one broker in the process, as standalone runs.
 */
public final class BrokerRequestMeters implements MeterBinder {
    /** The broker's histogram of each request phase, by the meter it becomes. */
    private static final Map<String, Phase> PHASES = Map.of(
            "TotalTimeMs", new Phase("millrace.broker.request", "Requests the embedded broker answered, and their time"),
            "RequestQueueTimeMs", new Phase("millrace.broker.request.queue",
                    "Time the embedded broker's requests waited for a request handler thread"),
            "RemoteTimeMs", new Phase("millrace.broker.request.remote",
                    "Time the embedded broker's requests waited on others once handled (long polls, transactions)"));
    private static final Pattern REQUEST = Pattern.compile("[,:]request=([^,]+)");

    private record Phase(String meter, String description) {
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        KafkaYammerMetrics.defaultRegistry().allMetrics().forEach((name, metric) -> {
            Phase phase = PHASES.get(name.getName());
            String request = request(name);
            if (phase != null && request != null && metric instanceof Histogram histogram) {
                FunctionTimer.builder(phase.meter(), histogram, Histogram::count, Histogram::sum, TimeUnit.MILLISECONDS)
                        .tag("request", request)
                        .description(phase.description())
                        .register(registry);
            }
        });
    }

    /**
     * The request type a request metric is of; none for other metrics, and for the fetches that the broker also counts
     * by who fetched ({@code FetchConsumer}, {@code FetchFollower}: each is in {@code Fetch} too).
     */
    static String request(MetricName name) {
        if (!"kafka.network".equals(name.getGroup()) || !"RequestMetrics".equals(name.getType())) {
            return null;
        }
        Matcher request = REQUEST.matcher(name.getMBeanName());
        if (!request.find()) {
            return null;
        }
        String type = request.group(1);
        return type.startsWith("Fetch") && !type.equals("Fetch") ? null : type;
    }
}
