package io.millrace.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.sse.SseClient;
import io.micrometer.core.instrument.Timer;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.PauseExecution;
import io.millrace.core.command.ReplaySeed;
import io.millrace.core.command.RestartExecution;
import io.millrace.core.command.ResumeExecution;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.ExpressionException;
import io.millrace.core.expression.Expressions;
import io.millrace.core.expression.SecretException;
import io.millrace.core.expression.TaskSecrets;
import io.millrace.config.SecretSettings;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.InputDef;
import io.millrace.core.flow.InputType;
import io.millrace.core.flow.Inputs;
import io.millrace.core.flow.Pause;
import io.millrace.core.flow.TriggerDef;
import io.millrace.core.flow.TriggerTypes;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.ExecutionSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts, kills and reads executions. Starting validates everything it can before producing the
 * command (unknown flow 404, disabled flow 409, bad inputs 400), so a command on the topic is one the executor accepts;
 * then a valid start is admitted, or refused while the executor is behind ({@link Admission}: 503).
 */
final class ExecutionService {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutionService.class);
    /** An answer: HTTP status and JSON body. */
    record Reply(int status, ObjectNode body) {
    }

    private final FlowService flows;
    private final ReadModel readModel;
    private final Waiters waiters;
    private final Followers followers;
    private final Admission admission;
    private final Publisher publisher;
    private final Executor executor;
    private final Clock clock;
    private final Expressions expressions;
    private final WebhookRates webhookRates;
    private final SecretSettings secrets;
    private final Timer endToRead;

    /**
     * @param executor where answers are built, never on Kafka's threads
     * @param expressions renders a webhook's inputs
     * @param webhookRates the calls each webhook trigger takes a second
     * @param secrets encrypts SECRET inputs; names the headers a webhook call drops
     * @param endToRead records, for each answer that waited for an end, how long its last snapshot took to come
     */
    ExecutionService(FlowService flows, ReadModel readModel, Waiters waiters, Followers followers, Admission admission,
            Publisher publisher, Executor executor, Clock clock, Expressions expressions, WebhookRates webhookRates,
            SecretSettings secrets, Timer endToRead) {
        this.flows = flows;
        this.webhookRates = webhookRates;
        this.secrets = secrets;
        this.followers = followers;
        this.expressions = expressions;
        this.readModel = readModel;
        this.waiters = waiters;
        this.admission = admission;
        this.publisher = publisher;
        this.executor = executor;
        this.clock = clock;
        this.endToRead = endToRead;
    }

    /**
     * Validates now (throwing {@link ApiException}), is admitted or refused (503 with {@code Retry-After}), then
     * produces a CreateExecution for the flow's latest revision. Without {@code wait}: 200 with the execution as CREATED once the command is acknowledged.
     * With it: 200 with the terminal execution, or 202 with the latest known one when {@code wait} passes.
     */
    CompletableFuture<Reply> start(String namespace, String flowId, ExecutionRequest request, Optional<Duration> wait) {
        return start(enabledFlow(namespace, flowId), request, null, wait);
    }

    /**
     * A call of a flow's {@code Webhook} trigger: 404 when no enabled Webhook trigger of an enabled flow has the key,
     * the same answer whether the flow is unknown, disabled or the key wrong, so that a caller learns nothing but that
     * its key opens nothing; 429 past {@code webhook-rate-per-key}; then a start as {@link #start}, with the
     * trigger's {@code inputs} rendered against the call ({@code trigger.body}, {@code trigger.headers},
     * {@code trigger.parameters}) and its labels, waiting when the trigger says {@code wait: true}. The headers of
     * {@code webhook-drop-headers} are dropped first: no variable, record or answer holds them.
     */
    CompletableFuture<Reply> webhook(String namespace, String flowId, String key, WebhookCall given,
            Duration defaultWait) {
        WebhookCall call = given.withoutHeaders(secrets.webhookDropHeaders());
        ApiException notFound = ApiException.notFound("Webhook not found: no enabled Webhook trigger of flow '"
                + Flow.key(namespace, flowId) + "' has this key");
        Flow flow;
        try {
            flow = flows.latestFlow(namespace, flowId);
        } catch (ApiException e) {
            throw e.status() == 404 ? notFound : e;
        }
        TriggerDef trigger = flow.disabled() ? null : flow.triggers().stream()
                .filter(t -> t.type().equals(TriggerTypes.WEBHOOK) && !t.disabled()
                        && BearerTokens.sameSecret(key, t.text("key")))
                .findFirst()
                .orElse(null);
        if (trigger == null) {
            throw notFound;
        }
        webhookRates.admit(flow.key(), trigger.id());
        Map<String, Object> variables = call.variables();
        Map<String, Object> inputs = Map.of();
        if (trigger.properties().get("inputs") instanceof Map<?, ?> declared) {
            try {
                @SuppressWarnings("unchecked")
                var rendered = (Map<String, Object>) expressions.renderDeep(declared, Map.of("trigger", variables,
                        "flow", Map.of("namespace", flow.namespace(), "id", flow.id(), "revision", flow.revision())));
                inputs = rendered;
            } catch (ExpressionException e) {
                // the reason may quote the call or an exception's text: logged for the flow's owner, not answered
                String id = ErrorIds.log(LOG, "Webhook trigger " + flow.key() + "/" + trigger.id()
                        + ": its inputs did not render: " + e.getMessage(), null);
                throw new ApiException(422, "Webhook trigger '" + trigger.id() + "': its inputs did not render; the"
                        + " gateway's log has the reason under error id " + id, java.util.List.of());
            }
        }
        variables = withSecretInputsMasked(flow, inputs, variables);
        boolean wait = Boolean.TRUE.equals(trigger.properties().get("wait"));
        var request = new ExecutionRequest(inputs, trigger.labels());
        var started = start(flow, request, new ExecutionTrigger(trigger.id(), trigger.type(), variables),
                wait ? Optional.of(defaultWait) : Optional.empty());
        if (!wait) {
            return started;
        }
        boolean outputsOnly = Boolean.TRUE.equals(trigger.properties().get("returnOutputs"));
        // as Kestra's: an execution that ended FAILED answers 500; with returnOutputs, the body is its outputs
        return started.thenApply(reply -> new Reply(
                reply.status() == 200 && "FAILED".equals(reply.body().at("/state/current").asText()) ? 500 : reply.status(),
                !outputsOnly ? reply.body() : reply.body().path("outputs").isObject()
                        ? (ObjectNode) reply.body().path("outputs") : Json.MAPPER.createObjectNode()));
    }

    /**
     * The call's variables with each value its inputs gave a SECRET input masked, as a task run masks a secret
     * ({@link TaskSecrets}): the trigger the execution records does not hold what the input encrypts.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> withSecretInputsMasked(Flow flow, Map<String, Object> inputs,
            Map<String, Object> variables) {
        var values = new TaskSecrets(name -> {
            throw new SecretException("Expected no secret() in a webhook call, but '" + name + "' was asked for");
        });
        boolean any = false;
        for (InputDef input : flow.inputs()) {
            if (input.type() == InputType.SECRET && inputs.get(input.id()) instanceof String value
                    && !value.isEmpty()) {
                values.add(value);
                any = true;
            }
        }
        return any ? (Map<String, Object>) values.maskDeep(variables) : variables;
    }

    private Flow enabledFlow(String namespace, String flowId) {
        Flow flow = flows.latestFlow(namespace, flowId);
        if (flow.disabled()) {
            throw ApiException.conflict("Flow '" + flow.key() + "' is disabled: enable it to start executions");
        }
        return flow;
    }

    private CompletableFuture<Reply> start(Flow flow, ExecutionRequest request, ExecutionTrigger trigger,
            Optional<Duration> wait) {
        String namespace = flow.namespace();
        String flowId = flow.id();
        request = withSecretInputsEncrypted(flow, request);
        Map<String, Object> inputs;
        try {
            inputs = Inputs.resolve(flow.inputs(), request.inputs());
        } catch (Inputs.InvalidInputsException e) {
            throw ApiException.badRequest("Invalid inputs for flow '" + flow.key() + "': " + e.getMessage(), e.problems());
        }
        // after validation: a start that could never succeed is told so, not to retry
        admission.admit();
        String id = Ids.newExecutionId();
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        var created = Execution.created(id, namespace, flowId, flow.revision(), inputs,
                flow.executionLabels(request.labels(), id), trigger, now);
        // The given inputs, not the resolved ones: the executor resolves them again and stays the authority.
        var command = new CreateExecution(id, namespace, flowId, flow.revision(), request.inputs(), request.labels(), now,
                trigger);

        if (wait.isEmpty()) {
            return admission.publish(() -> publisher.publishCommand(command))
                    .thenApplyAsync(acked -> new Reply(200, ExecutionJson.of(created, Map.of(), clock.instant())), executor);
        }
        // Registered before producing, so the terminal snapshot cannot come first.
        CompletableFuture<ExecutionSnapshot> terminal = trigger != null && TriggerTypes.WEBHOOK.equals(trigger.type())
                ? waiters.registerWebhook(id, wait.get()) : waiters.register(id, wait.get());
        // when the terminal snapshot was read: on the thread that read it, before this answer waits for an executor
        CompletableFuture<Instant> readAt = terminal.thenApply(snapshot -> snapshot == null ? null : clock.instant());
        return admission.publish(() -> publisher.publishCommand(command))
                .whenComplete((acked, failure) -> {
                    if (failure != null) {
                        terminal.cancel(false);
                    }
                })
                .thenCompose(acked -> readAt)
                // the terminal snapshot came after its task runs' (same partition): the read model has them all
                .thenApplyAsync(at -> {
                    ObjectNode json = latestKnown(created);
                    if (at == null) {
                        return new Reply(202, json);
                    }
                    ExecutionJson.endToRead(json, at).ifPresent(endToRead::record);
                    return new Reply(200, json);
                }, executor);
    }

    /**
     * {@code request} with the value of each SECRET input of {@code flow}, given or its default, encrypted: nothing
     * after this holds it in clear. 422 when the flow has a SECRET input and {@code encryption-key} is not set; 400
     * for a value that is not a scalar (the answer never quotes it).
     */
    private ExecutionRequest withSecretInputsEncrypted(Flow flow, ExecutionRequest request) {
        List<InputDef> secret = flow.inputs().stream().filter(input -> input.type() == InputType.SECRET).toList();
        if (secret.isEmpty()) {
            return request;
        }
        if (secrets.inputCipher().isEmpty()) {
            throw new ApiException(422, "Flow '" + flow.key() + "' has the SECRET input '" + secret.getFirst().id()
                    + "', which the gateway encrypts with the setting " + SecretSettings.ENCRYPTION_KEY + ", but it is"
                    + " not set: give the gateway and the workers the same " + SecretSettings.ENCRYPTION_KEY
                    + " (openssl rand -base64 32)", List.of());
        }
        var inputs = new LinkedHashMap<>(request.inputs());
        for (InputDef input : secret) {
            Object value = inputs.containsKey(input.id()) ? inputs.get(input.id()) : input.defaults();
            if (value instanceof Map<?, ?> || value instanceof List<?>) {
                throw ApiException.badRequest("Invalid inputs for flow '" + flow.key() + "': Expected input '"
                        + input.id() + "' (SECRET) to be text, but got a JSON "
                        + (value instanceof Map ? "object" : "array"));
            }
            if (value != null) {
                inputs.put(input.id(), secrets.inputCipher().get().encrypt(String.valueOf(value)));
            }
        }
        return new ExecutionRequest(inputs, request.labels());
    }

    /** Kills an execution: 202 once the command is acknowledged; {@code cascade}: its running subflows' too. */
    CompletableFuture<Reply> kill(String executionId, boolean cascade) {
        return publisher.publishCommand(new KillExecution(executionId, clock.instant().truncatedTo(ChronoUnit.MILLIS),
                        cascade))
                .thenApplyAsync(acked -> new Reply(202, Json.MAPPER.createObjectNode()
                        .put("id", executionId)
                        .put("message", "Kill of execution '" + executionId + "' requested")), executor);
    }

    /**
     * Holds a RUNNING execution PAUSED at its next step (409 otherwise): 204 once the command is acknowledged. The
     * executor decides on the state it has then; a pause that finds the execution no longer running changes nothing.
     */
    CompletableFuture<Reply> pause(String executionId) {
        Execution execution = known(executionId);
        if (execution.state() != State.RUNNING) {
            throw ApiException.conflict("Execution '" + executionId + "' is not running: it is " + execution.state());
        }
        return publisher.publishCommand(new PauseExecution(executionId, clock.instant().truncatedTo(ChronoUnit.MILLIS)))
                .thenApplyAsync(acked -> new Reply(204, null), executor);
    }

    /**
     * Resumes a PAUSED execution (409 otherwise): its first PAUSED run goes on with {@code inputs}, checked here against
     * that Pause task's {@code onResume} inputs as a start's are against the flow's (400), and again by the executor.
     * 204 once the command is acknowledged.
     */
    CompletableFuture<Reply> resume(String executionId, Map<String, Object> inputs) {
        Execution execution = known(executionId);
        if (execution.state() != State.PAUSED) {
            throw ApiException.conflict("Execution '" + executionId + "' is not paused: it is " + execution.state());
        }
        TaskRun paused = execution.taskRuns().stream().filter(r -> r.state() == State.PAUSED).findFirst().orElse(null);
        if (paused != null) {
            try {
                Pause pause = pauseOf(execution, paused);
                if (pause != null) {
                    pause.resumeOutputs(inputs);
                } else {
                    Inputs.resolve(List.of(), inputs);
                }
            } catch (Inputs.InvalidInputsException e) {
                throw ApiException.badRequest("Invalid inputs to resume execution '" + executionId + "' at task '"
                        + paused.taskId() + "': " + e.getMessage(), e.problems());
            }
        } else if (!inputs.isEmpty()) {
            throw ApiException.badRequest("Execution '" + executionId + "' was paused by a call, not by a Pause task: it"
                    + " takes no inputs to resume");
        }
        var command = new ResumeExecution(executionId, paused == null ? null : paused.id(), inputs,
                clock.instant().truncatedTo(ChronoUnit.MILLIS));
        return publisher.publishCommand(command).thenApplyAsync(acked -> new Reply(204, null), executor);
    }

    /**
     * Restarts a FAILED or KILLED execution from its failed task runs (409 otherwise, and for one that failed before
     * any task ran): 202 once the command is acknowledged. The executor checks again on the state it has then.
     */
    CompletableFuture<Reply> restart(String executionId) {
        Execution execution = known(executionId);
        if (!execution.state().isFailure()) {
            throw ApiException.conflict("Execution '" + executionId + "' did not fail: it is " + execution.state()
                    + "; only a FAILED or KILLED execution can be restarted");
        }
        if (execution.taskRuns().stream().noneMatch(run -> run.state().isFailure())) {
            throw ApiException.conflict("Execution '" + executionId + "' has no failed task run to restart from (it "
                    + "failed before any task, or its flow outputs failed): start the flow again");
        }
        return publisher.publishCommand(new RestartExecution(executionId, clock.instant().truncatedTo(ChronoUnit.MILLIS)))
                .thenApplyAsync(acked -> new Reply(202, Json.MAPPER.createObjectNode()
                        .put("id", executionId)
                        .put("message", "Restart of execution '" + executionId + "' requested")), executor);
    }

    /**
     * Starts an ended execution again as a new one (Kestra's replay): the same flow revision, inputs, labels and
     * trigger, its {@code originalId} naming the first execution of the chain and its attempt counted; 200 with the new
     * execution. From a task run ({@code taskRunId}), the new execution keeps what ended before that run
     * ({@link ReplaySeed}) and runs it and what follows anew. 409 while it runs, or when what it would keep was cut to
     * fit a record; 400 for a task run it does not have; 413 when what it keeps is over {@code max-record-bytes}.
     * With {@code revision}, the new execution runs that revision of the flow (404 when the flow has no such one).
     */
    CompletableFuture<Reply> replay(String executionId, String taskRunId, String revisionParam) {
        ReadModel.Snapshot snapshot = readModel.execution(executionId)
                .orElseThrow(() -> ApiException.notFound("Execution '" + executionId + "' not found"));
        Execution execution = ExecutionJson.execution(snapshot);
        if (!execution.state().isTerminal()) {
            throw ApiException.conflict("Execution '" + executionId + "' has not ended: it is " + execution.state()
                    + "; only an ended execution can be replayed");
        }
        int revision = revisionParam == null ? execution.flowRevision() : revision(execution, revisionParam);
        ReplaySeed seed = taskRunId == null ? null : seed(execution, taskRunId, ExecutionJson.outputs(snapshot));
        String id = Ids.newExecutionId();
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Lineage lineage = execution.lineage().next(executionId);
        var created = Execution.created(id, execution.namespace(), execution.flowId(), revision, execution.inputs(),
                execution.labels(), execution.trigger(), lineage, now, now);
        var command = new CreateExecution(id, execution.namespace(), execution.flowId(), revision, execution.inputs(),
                execution.labels(), now, execution.trigger(), lineage, seed);
        if (seed != null) {
            publisher.checkSize(command, "The replay of '" + executionId + "' from task run '" + taskRunId
                    + "' (the task runs it keeps and their outputs)");
        }
        admission.admit();
        return admission.publish(() -> publisher.publishCommand(command))
                .thenApplyAsync(acked -> new Reply(200, ExecutionJson.of(created, Map.of(), clock.instant())), executor);
    }

    /** The flow revision a replay is told to run (Kestra's {@code revision}): 400 if not a number, 404 if unknown. */
    private int revision(Execution execution, String value) {
        int revision;
        try {
            revision = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("Query parameter 'revision' must be a number, got '" + value + "'");
        }
        if (readModel.flowRevision(execution.namespace(), execution.flowId(), revision).isEmpty()) {
            throw ApiException.notFound("Flow '" + Flow.key(execution.namespace(), execution.flowId()) + "' has no revision "
                    + revision);
        }
        return revision;
    }

    /** What a replay from {@code taskRunId} keeps, refused when the snapshots cut an output it would keep. */
    private static ReplaySeed seed(Execution execution, String taskRunId, Map<String, String> outputsJson) {
        var outputs = new HashMap<String, Map<String, Object>>();
        outputsJson.forEach((run, json) -> outputs.put(run, Json.readMap(json)));
        ReplaySeed seed;
        try {
            seed = ReplaySeed.of(execution, taskRunId, outputs);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        for (ReplaySeed.SeedRun run : seed.runs()) {
            if (run.outputs().size() == 1 && run.outputs().get("truncated") instanceof String cut
                    && cut.contains("left out of this snapshot")) {
                throw ApiException.conflict("The outputs of task run '" + run.taskRunId() + "' (" + run.taskId()
                        + ") were cut to fit a record, so execution '" + execution.id() + "' cannot be replayed from"
                        + " a task run after it; replay it from its start");
            }
        }
        return seed;
    }

    /** The Pause task whose run waits, in the execution's own revision of its flow; null if it is none. */
    private Pause pauseOf(Execution execution, TaskRun paused) {
        Flow flow = readModel.flowRevision(execution.namespace(), execution.flowId(), execution.flowRevision())
                .map(FlowMapper::fromRecord)
                .orElseThrow(() -> ApiException.conflict("Flow '" + Flow.key(execution.namespace(), execution.flowId())
                        + "' revision " + execution.flowRevision() + " of execution '" + execution.id()
                        + "' is not known to this gateway"));
        return flow.task(paused.taskId()).orElse(null) instanceof Pause pause ? pause : null;
    }

    /** The namespace of an execution the read model knows. */
    Optional<String> namespaceOf(String executionId) {
        return readModel.execution(executionId).map(snapshot -> ExecutionJson.execution(snapshot).namespace());
    }

    private Execution known(String executionId) {
        return readModel.execution(executionId).map(ExecutionJson::execution)
                .orElseThrow(() -> ApiException.notFound("Execution '" + executionId + "' not found"));
    }

    /**
     * Follows an execution, one just started too: its frames begin once the read model has it, if the caller may see
     * its namespace ({@code visible}).
     */
    void follow(String executionId, SseClient client, Predicate<String> visible) {
        followers.follow(executionId, client, visible);
    }

    /** {@code {"results": [executions], "total": n}}, as Kestra's search answers. */
    ObjectNode search(ExecutionSearch search) {
        ReadModel.Found found = readModel.search(search);
        Instant now = clock.instant();
        ObjectNode body = Json.MAPPER.createObjectNode();
        var results = body.putArray("results");
        found.page().forEach(snapshot -> results.add(ExecutionJson.of(snapshot, now)));
        body.put("total", found.total());
        var counts = body.putObject("counts");
        found.counts().forEach(counts::put);
        return body;
    }

    /** The overview of the executions started over the last {@code hours} ({@link ExecutionStats}). */
    ObjectNode stats(int hours, String namespace, Predicate<String> visible) {
        Instant now = clock.instant();
        return readModel.stats(new ExecutionStats(now.minus(Duration.ofHours(hours)), now, namespace, visible)).json();
    }

    ObjectNode get(String executionId) {
        return readModel.execution(executionId)
                .map(snapshot -> ExecutionJson.of(snapshot, clock.instant()))
                .orElseThrow(() -> ApiException.notFound("Execution '" + executionId + "' not found"));
    }

    /** What the read model knows by now; the execution as created when it has not seen it yet. */
    private ObjectNode latestKnown(Execution created) {
        Instant now = clock.instant();
        try {
            return readModel.execution(created.id())
                    .map(snapshot -> ExecutionJson.of(snapshot, now))
                    .orElseGet(() -> ExecutionJson.of(created, Map.of(), now));
        } catch (ApiException notReady) {
            return ExecutionJson.of(created, Map.of(), now);
        }
    }
}
