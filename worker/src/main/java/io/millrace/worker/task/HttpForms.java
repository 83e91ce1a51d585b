package io.millrace.worker.task;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;

/** Encodes rendered form fields (name to text) as a request body. */
final class HttpForms {

    private HttpForms() {
    }

    /** application/x-www-form-urlencoded, UTF-8. */
    static String urlEncoded(Map<String, String> fields) {
        StringJoiner body = new StringJoiner("&");
        fields.forEach((name, value) -> body.add(
                URLEncoder.encode(name, StandardCharsets.UTF_8) + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8)));
        return body.toString();
    }

    /** multipart/form-data with text parts only (RFC 7578); the boundary must not occur in any value. */
    static byte[] multipart(Map<String, String> fields, String boundary) {
        StringBuilder body = new StringBuilder();
        fields.forEach((name, value) -> body.append("--").append(boundary).append("\r\n")
                .append("Content-Disposition: form-data; name=\"").append(escapeName(name)).append("\"\r\n")
                .append("Content-Type: text/plain; charset=UTF-8\r\n\r\n")
                .append(value).append("\r\n"));
        body.append("--").append(boundary).append("--\r\n");
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Field names are quoted: quotes and line breaks are percent-encoded, as browsers do. */
    private static String escapeName(String name) {
        return name.replace("\"", "%22").replace("\r", "%0D").replace("\n", "%0A");
    }
}
