package io.millrace.broker;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The embedded broker as a process of its own: {@code java -cp <millrace classpath> io.millrace.broker.BrokerMain
 * <data-dir> <port>}. Started again on the same data dir and port after a kill, it keeps every topic and record, so a
 * client that kept the address reconnects to the same cluster. Prints {@code Kafka broker up at <servers>} once it
 * answers; stops cleanly on SIGTERM.
 */
public final class BrokerMain {
    static final String UP = "Kafka broker up at ";

    private BrokerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("Usage: BrokerMain <data-dir> <port>");
            System.exit(2);
        }
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(Path.of(args[0]), Integer.parseInt(args[1]));
        var stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "broker-shutdown"));
        System.out.println(UP + broker.bootstrapServers());
        stopped.await();
    }
}
