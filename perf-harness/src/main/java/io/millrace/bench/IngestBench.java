package io.millrace.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.triggers.Triggers;
import java.time.Instant;
import org.apache.kafka.common.serialization.StringSerializer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * How fast a Kafka trigger turns records into executions, against what a plain consumer reads on the same broker
 * (Feldera's method for its Kafka input): for each event size and partition count, a topic is filled first; then a
 * plain consumer reads it all (the baseline), then a flow's RealtimeTrigger reads it from the start, and the rate is
 * that of the create commands it writes (their timestamps, first to last). The trigger runs alone: an instance of the
 * triggers role in this JVM, under a topic prefix of its own that no executor reads, so what is measured is the
 * trigger's intake, not the executor (whose rate the W sweeps measure).
 */
final class IngestBench {
    static final List<Integer> SIZES = List.of(256, 1024, 16 * 1024, 64 * 1024);
    static final List<Integer> PARTITIONS = List.of(1, 16);
    private static final long BYTES_PER_CASE = 128L << 20;
    private static final int MAX_RECORDS = 100_000;

    /** One case's result: a plain consumer's rate, a consumer that copies each record to a topic, the trigger's. */
    record Row(int size, int partitions, int records, double rawPerS, double copyPerS, double triggerPerS) {
        double ratio() {
            return triggerPerS / rawPerS;
        }

        double ratioToCopy() {
            return triggerPerS / copyPerS;
        }
    }

    private IngestBench() {
    }

    static List<Row> run(String servers, Consumer<String> out) throws Exception {
        var rows = new ArrayList<Row>();
        for (int partitions : PARTITIONS) {
            for (int size : SIZES) {
                int records = (int) Math.min(MAX_RECORDS, BYTES_PER_CASE / size);
                String run = "ingest" + UUID.randomUUID().toString().substring(0, 8);
                String topic = run + "-events";
                fill(servers, topic, partitions, size, records);
                double raw = rawConsumer(servers, topic, records);
                double copy = copier(servers, topic, records);
                double trigger = trigger(servers, run, topic, records);
                var row = new Row(size, partitions, records, raw, copy, trigger);
                rows.add(row);
                out.accept(String.format(Locale.ROOT, "ingest %6d B x %2d partitions, %6d records: raw consumer %9.0f/s, "
                        + "copy %8.0f/s, trigger %8.0f/s, ratio %.2f (to the copy %.2f)", size, partitions, records, raw,
                        copy, trigger, row.ratio(), row.ratioToCopy()));
            }
        }
        return rows;
    }

    private static void fill(String servers, String topic, int partitions, int size, int records) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers))) {
            // the copier's topic too, now: its leaders are settled when it writes
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1), new NewTopic(topic + "-copy", 4, (short) 1)))
                    .all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic, topic + "-copy"));
        }
        // not idempotent: a brand-new partition first answers NOT_LEADER, after which this client's idempotent producer
        // was seen to retry OUT_OF_ORDER_SEQUENCE_NUMBER forever; a repeated event only adds a record to read
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 << 20, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.ACKS_CONFIG, "1"), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, null, event(i, size)));
            }
            producer.flush();
        }
    }

    /** A JSON order of {@code size} bytes. */
    static byte[] event(int n, int size) {
        String head = "{\"order_id\": " + n + ", \"pad\": \"";
        char[] pad = new char[Math.max(0, size - head.length() - 2)];
        Arrays.fill(pad, 'x');
        return (head + new String(pad) + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private static double rawConsumer(String servers, String topic, int records) {
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                ConsumerConfig.GROUP_ID_CONFIG, topic + "-raw", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long read = 0;
            long first = 0;
            while (read < records) {
                var batch = consumer.poll(Duration.ofMillis(200));
                if (!batch.isEmpty() && first == 0) {
                    first = System.nanoTime();
                }
                read += batch.count();
            }
            return records / ((System.nanoTime() - first) / 1e9);
        }
    }

    /**
     * A second baseline: a consumer that writes each record's value to a topic of 4 partitions, as the trigger writes a
     * create (idempotent, all replicas), timed from its first poll to the last acknowledgement. Every design that
     * turns an event into a command on Kafka pays at least this.
     */
    private static double copier(String servers, String topic, int records) throws Exception {
        String sink = topic + "-copy";
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                ConsumerConfig.GROUP_ID_CONFIG, topic + "-copy", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
             var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 << 20),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            consumer.subscribe(List.of(topic));
            long first = 0;
            long read = 0;
            while (read < records) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (first == 0) {
                        first = System.nanoTime();
                    }
                    if (read++ < records) {
                        producer.send(new ProducerRecord<>(sink, record.key(), record.value()));
                    }
                }
            }
            producer.flush();
            return records / ((System.nanoTime() - first) / 1e9);
        }
    }

    /** Runs the triggers role on a flow triggered by the topic, then times the create commands it writes (first to last). */
    private static double trigger(String servers, String run, String topic, int records) throws Exception {
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", servers, "topic-prefix", run + ".",
                "state-dir", Files.createTempDirectory("millrace-ingest").toString(), "trigger-executor-backlog", "0"), null);
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.flows(), topics.commands()));
        try (var commands = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            var partitions = commands.partitionsFor(topics.commands().name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            commands.assign(partitions);
            commands.seekToBeginning(partitions);
            publish(servers, topics, run, topic);
            try (Triggers triggers = Triggers.start(config, new SimpleMeterRegistry())) {
                long seen = 0;
                long first = Long.MAX_VALUE;
                long last = 0;
                long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
                while (seen < records && System.nanoTime() < deadline) {
                    for (var record : commands.poll(Duration.ofMillis(200))) {
                        seen++;
                        first = Math.min(first, record.timestamp());
                        last = Math.max(last, record.timestamp());
                    }
                }
                if (seen < records) {
                    throw new IllegalStateException("The trigger wrote " + seen + " of " + records + " creates in 10 minutes");
                }
                return records / (Math.max(1, last - first) / 1e3);
            }
        }
    }

    private static void publish(String servers, Topics topics, String run, String topic) throws Exception {
        Flow flow = new FlowParser().parse("""
                id: ingest
                namespace: millrace.bench
                triggers:
                  - id: events
                    type: io.kestra.plugin.kafka.RealtimeTrigger
                    topic: %s
                    groupId: %s
                    properties:
                      bootstrap.servers: "%s"
                      auto.offset.reset: earliest
                tasks:
                  - {id: noop, type: io.kestra.plugin.core.log.Log, message: x}
                """.formatted(topic, run, servers)).withRevision(1);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers),
                new StringSerializer(), Topics.FLOW_SERDE.serializer())) {
            producer.send(new ProducerRecord<>(topics.flows().name(), FlowMapper.key(flow.namespace(), flow.id(), 1),
                    FlowMapper.toRecord(flow, Instant.now()))).get();
        }
    }

    static String markdown(List<Row> rows) {
        var md = new StringBuilder("| event size | partitions | records | raw consumer records/s | copy records/s "
                + "| trigger records/s | trigger / raw | trigger / copy |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %.0f | %.0f | %.2f | %.2f |%n",
                    row.size() >= 1024 ? row.size() / 1024 + " KiB" : row.size() + " B", row.partitions(), row.records(),
                    row.rawPerS(), row.copyPerS(), row.triggerPerS(), row.ratio(), row.ratioToCopy()));
        }
        return md.toString();
    }

    static void write(Path results, List<Row> rows) throws java.io.IOException {
        Files.writeString(results.resolve("ingest.md"), markdown(rows));
        Files.writeString(results.resolve("ingest.svg"), svg(rows));
    }

    /** Records/s of the three readers for each case, as bars on a logarithmic scale, each labelled with its trigger/raw ratio. */
    static String svg(List<Row> rows) {
        int width = 120 + 110 * rows.size();
        int height = 360;
        int top = 40;
        int bottom = 300;
        double max = rows.stream().mapToDouble(Row::rawPerS).max().orElse(10);
        double lo = 1_000;
        double hi = Math.pow(10, Math.ceil(Math.log10(Math.max(max, 10_000))));
        var svg = new StringBuilder(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                + "height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" "
                + "fill=\"white\"/>%n<text x=\"10\" y=\"20\" font-size=\"14\">A Kafka trigger's intake: records/s "
                + "(log scale) of a plain consumer, a copying consumer and the trigger</text>%n", width, height));
        for (double tick = lo; tick <= hi; tick *= 10) {
            double y = bottom - (bottom - top) * Math.log10(tick / lo) / Math.log10(hi / lo);
            svg.append(String.format(Locale.ROOT, "<line x1=\"80\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"74\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n", width - 20, y, y, y + 4, tick));
        }
        String[] colours = {"#999999", "#4c78a8", "#f58518"};
        String[] names = {"raw consumer", "copy", "trigger"};
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            double[] values = {row.rawPerS(), row.copyPerS(), row.triggerPerS()};
            int x0 = 100 + 110 * i;
            for (int k = 0; k < 3; k++) {
                double y = bottom - (bottom - top) * Math.log10(Math.max(values[k], lo) / lo) / Math.log10(hi / lo);
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"26\" height=\"%.1f\" fill=\"%s\">"
                        + "<title>%s %,.0f/s</title></rect>%n", x0 + 28 * k, y, bottom - y, colours[k], names[k], values[k]));
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s × %d</text>"
                    + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.0f %% of raw</text>%n", x0 + 42, bottom + 18,
                    row.size() >= 1024 ? row.size() / 1024 + " KiB" : row.size() + " B", row.partitions(), x0 + 42, bottom + 34,
                    100 * row.ratio()));
        }
        for (int k = 0; k < 3; k++) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", 100 + 150 * k, height - 14, colours[k], 116 + 150 * k,
                    height - 3, names[k]));
        }
        return svg.append("</svg>\n").toString();
    }
}
