package io.millrace.worker.task;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A TaskLogger for tests: keeps "LEVEL message" lines. */
final class RecordingLogger implements TaskLogger {

    final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    public void log(String level, String message) {
        lines.add(level + " " + message);
    }
}
