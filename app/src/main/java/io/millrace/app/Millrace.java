package io.millrace.app;

import io.millrace.bench.BenchCommand;
import io.millrace.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The launcher: one jar, one role per subcommand. */
@Command(name = "millrace", mixinStandardHelpOptions = true, version = "Millrace 0.1.0",
        description = "Event-sourced workflow orchestration on Kafka Streams.",
        subcommands = {StandaloneCommand.class, RoleCommand.ExecutorCommand.class, RoleCommand.WorkerCommand.class,
                RoleCommand.GatewayCommand.class, RoleCommand.TriggersCommand.class, FlowsCommand.class})
public final class Millrace implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // before any role makes a Kafka or HTTP client
        JvmSettings.apply();
        System.exit(commandLine().execute(args));
    }

    /** The launcher's command line; {@code bench} starts engines as {@code java -cp <this classpath> Millrace standalone}. */
    static CommandLine commandLine() {
        return new CommandLine(new Millrace()).addSubcommand("bench", new BenchCommand(Millrace.class.getName()))
                .setExecutionExceptionHandler((e, commandLine, parsed) -> {
                    if (!(e instanceof ConfigException)) {
                        throw e;
                    }
                    // a setting the user got wrong: the message names it and where it came from; no stack trace
                    commandLine.getErr().println("millrace: " + e.getMessage());
                    return CommandLine.ExitCode.USAGE;
                });
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
