package io.millrace.gateway;

import io.millrace.serdes.Json;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * Jetty's own error answers, the ones Javalin never sees (a request Jetty refuses while parsing it: headers too large,
 * a malformed request line; an error that escapes the servlet), as JSON {@code {"message": ...}} like every other
 * answer of the API. Jetty's default pages are HTML and show stack traces; this one says only what the status means.
 */
final class JettyErrors extends ErrorHandler {
    private final int maxRequestHeaderBytes;

    JettyErrors(int maxRequestHeaderBytes) {
        this.maxRequestHeaderBytes = maxRequestHeaderBytes;
        setShowStacks(false);
        setShowServlet(false);
    }

    @Override
    public void handle(String target, Request baseRequest, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        baseRequest.setHandled(true);
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setContentType("application/json");
        response.getOutputStream().write(body(response.getStatus()));
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(new HttpField(HttpHeader.CONTENT_TYPE, "application/json"));
        return ByteBuffer.wrap(body(status));
    }

    private byte[] body(int status) {
        String message = switch (status) {
            case HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431 -> "The request's headers are larger than the gateway"
                    + " accepts (max-request-header-bytes = " + maxRequestHeaderBytes + " bytes)";
            case HttpStatus.PAYLOAD_TOO_LARGE_413 -> "The request is larger than the gateway accepts";
            default -> {
                String reason = HttpStatus.getMessage(status);
                yield status >= 500 ? "Internal error" : reason != null ? reason : "Bad request";
            }
        };
        return Json.MAPPER.createObjectNode().put("message", message).toString().getBytes(StandardCharsets.UTF_8);
    }
}
