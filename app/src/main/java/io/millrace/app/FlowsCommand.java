package io.millrace.app;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.serdes.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * A folder of flows against a running engine's API, as a pipeline keeps them: {@code validate} checks every
 * {@code .yml}/{@code .yaml} file under it with the API's own validation, {@code deploy} validates them all and then
 * deploys them, or none when one is invalid. Any error exits non-zero.
 */
@Command(name = "flows", mixinStandardHelpOptions = true,
        description = "Validate or deploy a folder of flows (one a file) through the API.", subcommands = {FlowsCommand.Validate.class, FlowsCommand.Deploy.class})
final class FlowsCommand {
    /** What both subcommands take. */
    abstract static class OnFolder implements Callable<Integer> {
        @Parameters(index = "0", description = "The folder of flows (.yml, .yaml; sub-folders too)")
        Path folder;

        @Option(names = "--api", defaultValue = "${env:MILLRACE_API:-http://localhost:8080/api/v1}",
                description = "The engine's API (MILLRACE_API, default ${DEFAULT-VALUE})")
        String api;

        @Option(names = "--api-token", defaultValue = "${env:MILLRACE_API_TOKEN}",
                description = "A bearer token (MILLRACE_API_TOKEN), when the API wants one")
        String token;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

        List<Path> files() throws IOException {
            if (!Files.isDirectory(folder)) {
                throw new IOException(folder + " is not a folder");
            }
            try (Stream<Path> all = Files.walk(folder)) {
                return all.filter(Files::isRegularFile)
                        .filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml")).sorted().toList();
            }
        }

        HttpResponse<String> post(String path, String yaml) throws IOException, InterruptedException {
            var request = HttpRequest.newBuilder(URI.create(api.replaceAll("/+$", "") + path))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/x-yaml")
                    .POST(HttpRequest.BodyPublishers.ofString(yaml));
            if (token != null && !token.isBlank()) {
                request.header("Authorization", "Bearer " + token);
            }
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }

        /** A flow's file and its source, as read once. */
        record Source(Path file, String yaml) {
        }

        /** Validates every file, printing each; their sources when every one is valid, else null. */
        List<Source> validateAll(PrintWriter out) throws IOException, InterruptedException {
            var sources = new ArrayList<Source>();
            boolean allValid = true;
            List<Path> files = files();
            if (files.isEmpty()) {
                out.println(folder + ": no .yml or .yaml file");
                return null;
            }
            for (Path file : files) {
                String yaml = Files.readString(file);
                HttpResponse<String> answer = post("/flows/validate", yaml);
                if (answer.statusCode() != 200) {
                    out.println(file + ": the API answered " + answer.statusCode() + ": " + message(answer.body()));
                    allValid = false;
                    continue;
                }
                JsonNode entries = Json.MAPPER.readTree(answer.body());
                if (entries.size() != 1) {
                    out.println(file + ": expected one flow a file, but it holds " + entries.size());
                    allValid = false;
                }
                for (JsonNode entry : entries) {
                    if (entry.path("constraints").isNull()) {
                        out.println(file + ": valid (" + entry.path("namespace").asText() + "/"
                                + entry.path("flow").asText() + ")");
                    } else {
                        allValid = false;
                        out.println(file + ": invalid");
                        entry.path("constraints").asText().lines().forEach(line -> out.println("  " + line));
                    }
                }
                sources.add(new Source(file, yaml));
            }
            return allValid ? sources : null;
        }

        static String message(String body) {
            try {
                return Json.MAPPER.readTree(body).path("message").asText(body);
            } catch (IOException notJson) {
                return body;
            }
        }
    }

    @Command(name = "validate", mixinStandardHelpOptions = true,
            description = "Validate every flow of a folder with the API's validation; exits 1 on any error.")
    static final class Validate extends OnFolder {
        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            return validateAll(out) == null ? 1 : 0;
        }
    }

    @Command(name = "deploy", mixinStandardHelpOptions = true,
            description = "Validate every flow of a folder, then deploy them all (none when one is invalid).")
    static final class Deploy extends OnFolder {
        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            List<Source> sources = validateAll(out);
            if (sources == null) {
                out.println("Nothing deployed: fix the flows above first");
                return 1;
            }
            int code = 0;
            for (Source source : sources) {
                HttpResponse<String> answer = post("/flows", source.yaml());
                if (answer.statusCode() == 200) {
                    JsonNode deployed = Json.MAPPER.readTree(answer.body());
                    out.println(source.file() + ": deployed " + deployed.path("namespace").asText() + "/"
                            + deployed.path("id").asText() + " revision " + deployed.path("revision").asInt());
                } else {
                    out.println(source.file() + ": the API answered " + answer.statusCode() + ": "
                            + message(answer.body()));
                    code = 1;
                }
            }
            return code;
        }
    }
}
