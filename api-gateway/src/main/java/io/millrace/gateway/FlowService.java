package io.millrace.gateway;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.millrace.core.cache.LruCache;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import io.millrace.core.flow.InputDef;
import io.millrace.core.flow.Pause;
import io.millrace.core.flow.WorkerTask;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.FlowRecord;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Flow deploys and lookups. A flow's latest revision is the newer of the global store's and the
 * overlay's (revisions this gateway produced that the store has not read yet).
 */
final class FlowService {
    /** namespace, id and the revision that now holds the source. */
    record Deployed(String namespace, String id, int revision) {
    }

    /** The flows of the global store: the read model's ({@link ReadModel}). */
    interface StoredFlows {
        /** The highest revision of a flow. */
        Optional<FlowRecord> latestFlow(String namespace, String id);

        /** One revision of a flow. */
        Optional<FlowRecord> flowRevision(String namespace, String id, int revision);

        /** The latest revision of every flow not deleted, by namespace, then id. */
        List<FlowRecord> latestFlows();

        /** The newest {@code limit} revisions of a flow, deletions included, oldest first. */
        List<FlowRecord> flowRevisions(String namespace, String id, int limit);
    }

    /** The revisions one answer of {@link #revisions} lists at most: the newest (docs/LIMITS.md). */
    static final int MAX_REVISIONS = 100;
    private static final int PARSED_CACHE_SIZE = 256;

    private final FlowParser parser = new FlowParser();
    private final StoredFlows stored;
    private final FlowOverlay overlay;
    private final Publisher publisher;
    private final Clock clock;
    private final Consumer<Set<String>> workerTopics;
    /** Worker groups whose task topics this gateway made sure of (under the deploy lock). */
    private final Set<String> ensuredGroups = new HashSet<>();
    /**
     * Deploys are rare; one lock keeps two concurrent deploys of a flow from taking the same revision.
     * Held while the revision is produced, until the broker acknowledges it.
     */
    private final ReentrantLock deploying = new ReentrantLock();
    private final LruCache<String, Flow> parsed = new LruCache<>(PARSED_CACHE_SIZE);

    /**
     * @param workerTopics makes sure the task topics of the given worker groups exist, so the executor
     *     never dispatches to a topic that is not there; called once per group, on the first deploy that uses it
     */
    FlowService(StoredFlows stored, FlowOverlay overlay, Publisher publisher, Clock clock,
            Consumer<Set<String>> workerTopics) {
        this.stored = stored;
        this.overlay = overlay;
        this.publisher = publisher;
        this.clock = clock;
        this.workerTopics = workerTopics;
    }

    /**
     * Stores a new revision (latest + 1), or none when the source equals the latest revision's.
     * Invalid YAML or an invalid flow is a 400 listing every problem.
     *
     * @param allowed told of the parsed flow before anything is stored; throws when the caller may not deploy it
     */
    Deployed deploy(String yaml, Consumer<Flow> allowed) {
        Flow flow;
        try {
            flow = parser.parse(yaml);
        } catch (FlowValidationException e) {
            throw ApiException.badRequest(e.getMessage(), e.problems());
        }
        allowed.accept(flow);
        deploying.lock();
        try {
            Optional<FlowRecord> latest = latestRevision(flow.namespace(), flow.id());
            if (latest.isPresent() && !latest.get().getDeleted() && latest.get().getSource().equals(yaml)) {
                return new Deployed(flow.namespace(), flow.id(), latest.get().getRevision());
            }
            int revision = latest.map(r -> r.getRevision() + 1).orElse(1);
            Set<String> newGroups = flow.allTasks().filter(WorkerTask.class::isInstance)
                    .map(t -> ((WorkerTask) t).workerGroup()).filter(g -> !ensuredGroups.contains(g))
                    .collect(Collectors.toSet());
            if (!newGroups.isEmpty()) {
                workerTopics.accept(newGroups);
                ensuredGroups.addAll(newGroups);
            }
            FlowRecord record = FlowMapper.toRecord(flow.withRevision(revision), clock.instant().truncatedTo(ChronoUnit.MILLIS));
            publisher.publishFlow(record);
            overlay.remember(record);
            parsed.put(FlowMapper.key(flow.namespace(), flow.id(), revision), flow.withRevision(revision));
            return new Deployed(flow.namespace(), flow.id(), revision);
        } finally {
            deploying.unlock();
        }
    }

    /**
     * Validates flows without deploying them, as Kestra's {@code POST /api/v1/flows/validate}: the YAML may hold several
     * documents (separated by {@code ---} lines); one entry each, in order: its {@code index}, {@code namespace} and
     * {@code flow} (its id) when it parses, and {@code constraints}, every problem one a line, or null when it is valid.
     */
    ArrayNode validate(String yaml) {
        ArrayNode results = Json.MAPPER.createArrayNode();
        int index = 0;
        for (String document : yaml.split("(?m)^---[ \t]*$")) {
            if (document.isBlank()) {
                continue;
            }
            ObjectNode entry = results.addObject().put("index", index++);
            try {
                Flow flow = parser.parse(document);
                entry.put("namespace", flow.namespace()).put("flow", flow.id()).putNull("constraints");
            } catch (FlowValidationException e) {
                entry.put("constraints", String.join("\n", e.problems()));
            }
        }
        return results;
    }

    /**
     * Deletes a flow: a new revision that says so, keeping its last source; its triggers stop and nothing starts it.
     * Executions already running finish on their revision. Posting the flow again brings it back, as a new revision.
     */
    void delete(String namespace, String id) {
        deploying.lock();
        try {
            FlowRecord latest = latest(namespace, id)
                    .orElseThrow(() -> ApiException.notFound("Flow '" + Flow.key(namespace, id) + "' not found"));
            FlowRecord deletion = FlowMapper.deletion(latest, clock.instant().truncatedTo(ChronoUnit.MILLIS));
            publisher.publishFlow(deletion);
            overlay.remember(deletion);
        } finally {
            deploying.unlock();
        }
    }

    /** The latest revision of a flow that exists (not deleted). */
    Optional<FlowRecord> latest(String namespace, String id) {
        return latestRevision(namespace, id).filter(record -> !record.getDeleted());
    }

    /**
     * One revision of a flow, as stored (a deleted flow's revisions too: executions of them still show), or the latest
     * this gateway produced that the store has not read yet (an execution started right after a deploy asks for it).
     */
    Optional<FlowRecord> revision(String namespace, String id, int revision) {
        return stored.flowRevision(namespace, id, revision)
                .or(() -> latestRevision(namespace, id).filter(record -> record.getRevision() == revision));
    }

    /**
     * A flow's revisions as Kestra's {@code GET /api/v1/flows/{namespace}/{id}/revisions}: each its namespace, id,
     * revision, {@code deleted} (a deletion is a revision too), {@code createdAt} and source, as stored (not parsed
     * again: a list of sources to compare, which a revision that no longer parses does not break), oldest first; the
     * newest {@link #MAX_REVISIONS}
     * only, so a first revision other than 1 says that older ones were left out. A revision this gateway just produced
     * is listed before the store has it, as the latest is (only the last one it produced of the flow, as the overlay
     * keeps no more).
     *
     * @throws ApiException 404 when the flow has no revision
     */
    ArrayNode revisions(String namespace, String id) {
        var revisions = new ArrayList<>(stored.flowRevisions(namespace, id, MAX_REVISIONS));
        Optional<FlowRecord> storedLatest = revisions.isEmpty() ? Optional.empty() : Optional.of(revisions.getLast());
        overlay.latest(namespace, id, () -> storedLatest)
                .filter(latest -> storedLatest.isEmpty() || latest.getRevision() > storedLatest.get().getRevision())
                .ifPresent(revisions::add);
        if (revisions.isEmpty()) {
            throw ApiException.notFound("Flow '" + Flow.key(namespace, id) + "' not found");
        }
        ArrayNode json = Json.MAPPER.createArrayNode();
        revisions.subList(Math.max(0, revisions.size() - MAX_REVISIONS), revisions.size())
                .forEach(record -> json.addObject().put("namespace", record.getNamespace()).put("id", record.getId())
                        .put("revision", record.getRevision()).put("deleted", record.getDeleted())
                        .put("createdAt", record.getCreatedAt().toString()).put("source", record.getSource()));
        return json;
    }

    private Optional<FlowRecord> latestRevision(String namespace, String id) {
        return overlay.latest(namespace, id, () -> stored.latestFlow(namespace, id));
    }

    /**
     * The flows the caller may see ({@code visible} namespaces), optionally of one {@code namespace} and those inside
     * it, as Kestra's {@code GET /api/v1/flows/search}: {@code results} (as {@link #describe}) of the 1-based
     * {@code page} of {@code size}, and the {@code total}.
     */
    ObjectNode search(String namespace, Predicate<String> visible, int page, int size) {
        List<FlowRecord> found = stored.latestFlows().stream()
                .filter(f -> namespace == null || f.getNamespace().equals(namespace)
                        || f.getNamespace().startsWith(namespace + "."))
                .filter(f -> visible.test(f.getNamespace())).toList();
        ObjectNode json = Json.MAPPER.createObjectNode();
        ArrayNode results = json.putArray("results");
        found.stream().skip((long) (page - 1) * size).limit(size).forEach(record -> results.add(describe(record)));
        return json.put("total", found.size());
    }

    /**
     * A flow's revision as the API shows it: namespace, id, revision, disabled, its inputs (id, type, required,
     * description, defaults) and triggers (id, type), its Pause tasks' {@code onResume} inputs ({@code pauses}: what a
     * form to resume it needs), and its source.
     */
    ObjectNode describe(FlowRecord record) {
        Flow flow = parsed(record);
        ObjectNode json = Json.MAPPER.createObjectNode().put("namespace", record.getNamespace()).put("id", record.getId())
                .put("revision", record.getRevision()).put("disabled", flow.disabled());
        inputs(json.putArray("inputs"), flow.inputs());
        ArrayNode triggers = json.putArray("triggers");
        flow.triggers().forEach(trigger -> triggers.addObject().put("id", trigger.id()).put("type", trigger.type()));
        ArrayNode pauses = json.putArray("pauses");
        flow.allTasks().filter(Pause.class::isInstance).map(Pause.class::cast).forEach(pause ->
                inputs(pauses.addObject().put("taskId", pause.id()).putArray("onResume"),
                        pause.onResume() == null ? List.of() : pause.onResume()));
        return json.put("source", record.getSource());
    }

    /** A flow's revision as a graph of its tasks ({@link FlowGraph}). */
    ObjectNode graph(FlowRecord record) {
        return FlowGraph.of(parsed(record));
    }

    private Flow parsed(FlowRecord record) {
        return parsed.computeIfAbsent(FlowMapper.key(record.getNamespace(), record.getId(), record.getRevision()),
                k -> FlowMapper.fromRecord(record));
    }

    private static void inputs(ArrayNode json, List<InputDef> inputs) {
        inputs.forEach(input -> {
            ObjectNode entry = json.addObject().put("id", input.id()).put("type", input.type().name())
                    .put("required", input.required()).put("description", input.description());
            entry.set("defaults", Json.MAPPER.valueToTree(input.defaults()));
            if (input.values() != null) {
                input.values().forEach(entry.putArray("values")::add);
                entry.put("allowCustomValue", input.allowCustomValue());
            }
        });
    }

    /** The latest revision, parsed (and cached: executions of a flow need its inputs every time). */
    Flow latestFlow(String namespace, String id) {
        FlowRecord record = latest(namespace, id)
                .orElseThrow(() -> ApiException.notFound("Flow '" + Flow.key(namespace, id) + "' not found"));
        return parsed(record);
    }
}
