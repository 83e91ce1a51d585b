package io.millrace.worker.task;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Collects a response body in memory and gives up, cancelling the download, as soon as it grows past a limit.
 * Counts the bytes actually received, so a HEAD response announcing a large Content-Length is fine.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {

    private final int limit;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private Flow.Subscription subscription;

    private BoundedBody(int limit) {
        this.limit = limit;
    }

    static HttpResponse.BodyHandler<byte[]> handler(int limit) {
        return info -> new BoundedBody(limit);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (result.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            if ((long) bytes.size() + buffer.remaining() > limit) {
                subscription.cancel();
                result.completeExceptionally(new TooLarge(limit));
                return;
            }
            byte[] chunk = new byte[buffer.remaining()];
            buffer.get(chunk);
            bytes.writeBytes(chunk);
        }
    }

    @Override
    public void onError(Throwable error) {
        result.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        result.complete(bytes.toByteArray());
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }

    /** The body grew past the limit. */
    static final class TooLarge extends IOException {
        final int limit;

        TooLarge(int limit) {
            super("response body larger than " + limit + " bytes");
            this.limit = limit;
        }
    }
}
