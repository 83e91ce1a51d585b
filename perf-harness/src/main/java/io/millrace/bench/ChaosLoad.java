package io.millrace.bench;

import io.millrace.core.command.CreateExecution;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.triggers.TriggerIds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The chaos suite's steady load, three open-loop streams at fixed rates: W1 create commands on the commands topic,
 * W1 REST starts that wait for the outcome ({@code ?wait=true}), and W7 orders on a Kafka trigger's topic. Every
 * accepted start goes to the ledger under the phase it was sent in.
 */
final class ChaosLoad implements AutoCloseable {
    /** Longest a REST start may wait for its execution's outcome (the gateway's default wait-timeout). */
    static final Duration MAX_REST_WAIT = Duration.ofSeconds(60);

    private final ChaosLedger ledger;
    private final String runId;
    private final ScheduledExecutorService clock = Executors.newScheduledThreadPool(1,
            Thread.ofPlatform().name("chaos-load").daemon().factory());
    private final ExecutorService httpThreads = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(httpThreads)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final KafkaProducer<String, CommandRecord> commands;
    private final KafkaProducer<String, String> orders;
    private final String commandsTopic;
    private final URI restStart;
    private final String token;
    private final String eventTopic;
    /** How long a REST start waits for its execution's outcome; the gateway answers 202 when it passes. */
    private final Duration restWait;
    private final AtomicLong n = new AtomicLong();
    private final AtomicInteger restInFlight = new AtomicInteger();
    /** Whether the first REST start without an answer, and the first answered with an error, were reported. */
    private final java.util.concurrent.atomic.AtomicBoolean toldUnanswered = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicBoolean toldFailed = new java.util.concurrent.atomic.AtomicBoolean();

    /** @param eventTopic the W7 trigger's topic, read by the flow {@code company.team/realtime-kafka-json} */
    ChaosLoad(String bootstrapServers, Topics topics, URI api, String token, String eventTopic, ChaosLedger ledger,
              Duration restWait) {
        this.ledger = ledger;
        this.runId = "chaos" + java.util.UUID.randomUUID().toString().substring(0, 8) + "-";
        var producer = Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5);
        this.commands = new KafkaProducer<>(producer, new StringSerializer(), Topics.COMMAND_SERDE.serializer());
        this.orders = new KafkaProducer<>(producer, new StringSerializer(), new StringSerializer());
        this.commandsTopic = topics.commands().name();
        this.restStart = URI.create(api.toString() + "/executions/" + Workload.NAMESPACE + "/" + Workload.W1.flowId()
                + "?wait=true&timeout=" + restWait);
        this.restWait = restWait;
        this.token = token;
        this.eventTopic = eventTopic;
    }

    /** Starts the three streams: {@code ratePerS} split evenly between Kafka and REST, plus a tenth of it as orders. */
    void start(double ratePerS) {
        schedule(ratePerS / 2, this::viaKafka);
        schedule(ratePerS / 2, this::viaRest);
        schedule(Math.max(1, ratePerS / 10), this::viaTrigger);
    }

    private void schedule(double ratePerS, Runnable start) {
        long periodMicros = Math.max(1, Math.round(1_000_000 / ratePerS));
        clock.scheduleAtFixedRate(() -> {
            try {
                start.run();
            } catch (RuntimeException e) {
                System.err.println("A chaos start failed to send: " + e);
            }
        }, 0, periodMicros, TimeUnit.MICROSECONDS);
    }

    private void viaKafka() {
        String id = runId + n.incrementAndGet();
        String phase = ledger.phase();
        long sent = System.nanoTime();
        var create = new CreateExecution(id, Workload.NAMESPACE, Workload.W1.flowId(), null, Map.of(), Map.of(), Instant.now());
        commands.send(new ProducerRecord<>(commandsTopic, id, CommandMapper.toRecord(create)), (metadata, error) -> {
            if (error == null) {
                ledger.accepted(id, phase, ChaosLedger.Via.KAFKA, sent);
            }
        });
    }

    private void viaRest() {
        String phase = ledger.phase();
        long sent = System.nanoTime();
        var request = RestStarter.authorized(HttpRequest.newBuilder(restStart), token)
                .timeout(restWait.plusSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
        restInFlight.incrementAndGet();
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> {
            try {
                if (error != null) {
                    if (toldUnanswered.compareAndSet(false, true)) {
                        System.err.println("A REST start (" + phase + ") got no answer (more may follow, not reported): " + error);
                    }
                    ledger.unanswered(phase);
                } else if (RestStarter.refused(response)) {
                    ledger.refused(phase);
                } else if (response.statusCode() == 200 || response.statusCode() == 202) {
                    Object id = Json.readMap(response.body()).get("id");
                    if (id != null) {
                        ledger.accepted(id.toString(), phase, ChaosLedger.Via.REST, sent);
                    } else {
                        ledger.failed(phase);
                    }
                } else {
                    if (toldFailed.compareAndSet(false, true)) {
                        System.err.println("A REST start (" + phase + ") was answered " + response.statusCode() + " "
                                + response.body() + " (more may follow, not reported)");
                    }
                    ledger.failed(phase);
                }
            } catch (RuntimeException e) {
                ledger.failed(phase);
            } finally {
                restInFlight.decrementAndGet();
            }
        });
    }

    private void viaTrigger() {
        String phase = ledger.phase();
        long sent = System.nanoTime();
        var record = new ProducerRecord<String, String>(eventTopic, null, System.currentTimeMillis(), null,
                Json.write(Workload.order(n.incrementAndGet())));
        orders.send(record, (metadata, error) -> {
            if (error == null) {
                ledger.accepted(TriggerIds.ofRecord("company.team", Workload.W7.flowId(), TriggerStarter.TRIGGER_ID,
                        eventTopic, metadata.partition(), metadata.offset(), metadata.timestamp()), phase,
                        ChaosLedger.Via.TRIGGER, sent);
            }
        });
    }

    /** Stops sending, then waits for the producers' acknowledgements and the REST answers still to come. */
    @Override
    public void close() throws InterruptedException {
        clock.shutdownNow();
        clock.awaitTermination(5, TimeUnit.SECONDS);
        commands.close(Duration.ofSeconds(130));
        orders.close(Duration.ofSeconds(130));
        long deadline = System.nanoTime() + restWait.plusSeconds(35).toNanos();
        while (restInFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        http.close();
        httpThreads.close();
    }
}
