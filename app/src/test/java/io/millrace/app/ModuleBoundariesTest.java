package io.millrace.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The roles share topics, never code: executor, worker, gateway and triggers do not import each other. */
class ModuleBoundariesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.millrace");
    }

    @Test
    void shouldKeepTheDecisionCoreFreeOfKafkaAndAvro() {
        noClasses().that().resideInAPackage("io.millrace.core..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "org.apache.avro..", "io.millrace.serdes..")
                .check(classes);
    }

    @Test
    void shouldKeepTheWorkerApartFromExecutorAndGateway() {
        noClasses().that().resideInAPackage("io.millrace.worker..")
                .should().dependOnClassesThat().resideInAnyPackage("io.millrace.topology..", "io.millrace.executor..",
                        "io.millrace.gateway..", "io.millrace.triggers..")
                .check(classes);
    }

    @Test
    void shouldKeepTheGatewayApartFromExecutorAndWorker() {
        noClasses().that().resideInAPackage("io.millrace.gateway..")
                .should().dependOnClassesThat().resideInAnyPackage("io.millrace.topology..", "io.millrace.executor..",
                        "io.millrace.worker..", "io.millrace.triggers..")
                .check(classes);
    }

    @Test
    void shouldKeepTheExecutorApartFromWorkerAndGateway() {
        noClasses().that().resideInAnyPackage("io.millrace.topology..", "io.millrace.executor..")
                .should().dependOnClassesThat().resideInAnyPackage("io.millrace.worker..", "io.millrace.gateway..",
                        "io.millrace.triggers..")
                .check(classes);
    }

    @Test
    void shouldKeepTheTriggersApartFromTheOtherRoles() {
        noClasses().that().resideInAPackage("io.millrace.triggers..")
                .should().dependOnClassesThat().resideInAnyPackage("io.millrace.topology..", "io.millrace.executor..",
                        "io.millrace.worker..", "io.millrace.gateway..")
                .check(classes);
    }
}
