package io.millrace.gateway;

import io.millrace.serdes.Json;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Bounds every request body to {@code max-request-bytes}: a declared {@code Content-Length} over it is answered 413
 * before anything is read; a body of unknown length (chunked) is read through a stream that fails with 413 at the
 * first byte past the bound, so no handler ever holds more than the bound in memory.
 */
final class BodyLimit implements Filter {
    private final long maxBytes;

    BodyLimit(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        if (http.getContentLengthLong() > maxBytes) {
            HttpServletResponse answer = (HttpServletResponse) response;
            answer.setStatus(413);
            answer.setContentType("application/json");
            // the unread body is not worth reading: close the connection after the answer
            answer.setHeader("Connection", "close");
            answer.getOutputStream().write(Json.MAPPER.createObjectNode().put("message", tooLarge())
                    .toString().getBytes(StandardCharsets.UTF_8));
            return;
        }
        chain.doFilter(http.getContentLengthLong() < 0 ? new Bounded(http) : request, response);
    }

    private String tooLarge() {
        return "The request body is larger than the gateway accepts (max-request-bytes = " + maxBytes + " bytes)";
    }

    private final class Bounded extends HttpServletRequestWrapper {
        private ServletInputStream stream;

        Bounded(HttpServletRequest request) {
            super(request);
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new Counting(super.getInputStream());
            }
            return stream;
        }
    }

    private final class Counting extends ServletInputStream {
        private final ServletInputStream in;
        private long read;

        Counting(ServletInputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > maxBytes) {
                throw new ApiException(413, tooLarge(), List.of());
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
