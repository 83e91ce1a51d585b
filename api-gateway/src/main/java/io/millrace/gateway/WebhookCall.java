package io.millrace.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.serdes.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One call of a webhook, as the execution it starts sees it: {@code trigger.body} (a JSON object or array when the
 * body is one, else the text; absent when there is no body), {@code trigger.headers} and {@code trigger.parameters}
 * (the query string), each name with the list of its values, as Kestra gives them; less the headers the gateway drops
 * ({@code webhook-drop-headers}).
 */
record WebhookCall(String body, Map<String, List<String>> headers, Map<String, List<String>> parameters) {

    /** This call without the headers named in {@code dropped} (lower case; names are compared ignoring case). */
    WebhookCall withoutHeaders(Set<String> dropped) {
        if (dropped.isEmpty()) {
            return this;
        }
        var kept = new LinkedHashMap<String, List<String>>();
        headers.forEach((name, values) -> {
            if (!dropped.contains(name.toLowerCase(Locale.ROOT))) {
                kept.put(name, values);
            }
        });
        return new WebhookCall(body, kept, parameters);
    }

    Map<String, Object> variables() {
        var variables = new LinkedHashMap<String, Object>();
        if (body != null && !body.isEmpty()) {
            variables.put("body", body(body));
        }
        variables.put("headers", headers);
        variables.put("parameters", parameters);
        return variables;
    }

    private static Object body(String text) {
        try {
            JsonNode json = Json.MAPPER.readTree(text);
            if (json != null && (json.isObject() || json.isArray())) {
                return Json.MAPPER.convertValue(json, Object.class);
            }
        } catch (JsonProcessingException e) {
            // not JSON: the text as it came
        }
        return text;
    }
}
