package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The UI in a real browser (Debian's headless Chromium, installed by bin/install-chromium) against a real standalone
 * engine: a flow written in the editor (a validation error shown first), deployed, run from its execute form and
 * watched to its end with its Gantt and logs; a long one killed, a failed one restarted and a paused one resumed with
 * an input, each from its page; the list filtered; two revisions of a flow compared; a flow's topology, box by
 * box, coloured by its execution's runs. Screenshots of each screen go to docs/img (docs/ui.md shows them), so
 * the docs show the UI as it is.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UiBrowserTest {
    private static final Path SCREENSHOTS = Path.of("..", "docs", "img");
    /** The axe-core WebJar's version (pom.xml's axe-core.version). */
    private static final String AXE_VERSION = "4.6.3";
    private static final String GREET = """
            id: greet
            namespace: ui.test
            inputs:
              - id: name
                type: STRING
                defaults: world
              - id: greeting
                type: SELECT
                values: [Hello, Hi]
                defaults: Hello
            tasks:
              - id: hello
                type: io.kestra.plugin.core.log.Log
                message: "{{ inputs.greeting }} {{ inputs.name }}"
              - id: answer
                type: io.kestra.plugin.core.debug.Return
                format: "{{ inputs.name | upper }}"
            """;
    private static final String BROKEN = """
            id: broken
            namespace: ui.test
            tasks:
              - id: fail
                type: io.kestra.plugin.core.execution.Fail
                errorMessage: always broken
            """;
    private static final String APPROVAL = """
            id: approval
            namespace: ui.test
            tasks:
              - id: wait
                type: io.kestra.plugin.core.flow.Pause
                onResume:
                  - id: reason
                    type: STRING
              - id: after
                type: io.kestra.plugin.core.log.Log
                message: "Resumed: {{ outputs.wait.onResume.reason }}"
            """;
    private static final String LOOP = """
            id: loop
            namespace: ui.test
            labels:
              team: ui crew
            tasks:
              - id: each
                type: io.kestra.plugin.core.flow.ForEach
                values: ["a", "b", "c"]
                tasks:
                  - id: first
                    type: io.kestra.plugin.core.debug.Return
                    format: "first {{ taskrun.value }}"
                  - id: second
                    type: io.kestra.plugin.core.debug.Return
                    format: "second {{ taskrun.value }}"
            """;
    /** A Parallel, an If whose else does not run, a ForEach inside it, a failure, errors and finally. */
    private static final String BRANCHES = """
            id: branches
            namespace: ui.graph
            tasks:
              - id: both
                type: io.kestra.plugin.core.flow.Parallel
                tasks:
                  - id: left
                    type: io.kestra.plugin.core.log.Log
                    message: left
                  - id: right
                    type: io.kestra.plugin.core.log.Log
                    message: right
              - id: check
                type: io.kestra.plugin.core.flow.If
                condition: "{{ 1 == 1 }}"
                then:
                  - id: counted
                    type: io.kestra.plugin.core.flow.ForEach
                    values: [1, 2, 3]
                    tasks:
                      - id: count
                        type: io.kestra.plugin.core.log.Log
                        message: "{{ taskrun.value }}"
                else:
                  - id: skipped
                    type: io.kestra.plugin.core.log.Log
                    message: never
              - id: broken
                type: io.kestra.plugin.core.execution.Fail
                errorMessage: on purpose
            errors:
              - id: alert
                type: io.kestra.plugin.core.log.Log
                message: "{{ task.id }} after a failure"
            finally:
              - id: cleanup
                type: io.kestra.plugin.core.log.Log
                message: done
            """;
    private static final String SLOW = """
            id: slow
            namespace: ui.test
            tasks:
              - id: nap
                type: io.kestra.plugin.core.flow.Sleep
                duration: PT60S
            """;

    private static final String REVISED = """
            id: revised
            namespace: ui.revisions
            tasks:
              - id: say
                type: io.kestra.plugin.core.log.Log
                message: first words
              - id: done
                type: io.kestra.plugin.core.log.Log
                message: the end
            """;

    @TempDir
    static Path stateDir;
    private Engine engine;
    private WebDriver browser;
    private WebDriverWait wait;
    private String ui;
    private String axe;

    @BeforeAll
    void startAnEngineAndABrowser() throws Exception {
        Process install = new ProcessBuilder(Path.of("..", "bin", "install-chromium").toString()).inheritIO().start();
        assertThat(install.waitFor(10, TimeUnit.MINUTES)).as("bin/install-chromium ended").isTrue();
        assertThat(install.exitValue()).as("bin/install-chromium's exit code").isZero();
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("ui", stateDir, "port", "0"), null);
        engine = Engine.start(config);
        ui = "http://localhost:" + engine.port() + "/ui/";
        var options = new ChromeOptions().setBinary(which("chromium"))
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900");
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        var service = new ChromeDriverService.Builder().usingDriverExecutable(new File(which("chromedriver"))).build();
        browser = new ChromeDriver(service, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        try (var in = getClass().getResourceAsStream("/META-INF/resources/webjars/axe-core/" + AXE_VERSION + "/axe.min.js")) {
            assertThat(in).as("axe-core " + AXE_VERSION + " on the test class path").isNotNull();
            axe = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    @Order(1) // it counts every execution and flow: before any other test adds its own
    void shouldWriteDeployRunWatchKillRestartResumeAndFindExecutionsInTheBrowser() throws Exception {
        // given: the editor of a new flow, and a flow without tasks typed into it
        browser.get(ui + "#/flows/new");
        WebElement source = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("source")));
        type(source, "");
        source.click();
        new Actions(browser).sendKeys("id: greet\nnamespace: ui.test\n").perform();

        // then: the API's validation shows the problem as it is typed
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("problems"), "tasks"));
        assertThat(browser.findElement(By.id("flow-status")).getText()).contains("problem");

        // when: a property misspelt in a task
        type(source, GREET.replace("message:", "mesage:"));

        // then: the problem is marked in the margin at its line, and listed with it
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("problems"), "mesage"));
        assertThat(browser.findElement(By.id("problems")).getText())
                .contains("line 14 Unknown or unsupported property 'mesage'");
        assertThat(browser.findElements(By.cssSelector("#source .problem-mark")))
                .anySatisfy(mark -> assertThat(mark.getAttribute("title")).contains("'mesage'", "task 'hello'"));
        assertThat(browser.findElements(By.cssSelector("#source .CodeMirror-code > div")).get(13).getText())
                .contains("mesage");
        assertThat(browser.findElements(By.cssSelector("#source .cm-atom"))).as("YAML keys highlighted").isNotEmpty();

        // when: the whole flow, deployed
        type(source, GREET);
        wait.until(ExpectedConditions.textToBe(By.id("flow-status"), "Valid"));
        assertThat(browser.findElements(By.cssSelector("#problems li"))).isEmpty();
        assertThat(browser.findElements(By.cssSelector("#source .problem-mark"))).isEmpty();
        screenshot("ui-flow-editor.png");
        browser.findElement(By.id("deploy")).click();

        // then: the flow's page, with an execute form from its inputs
        wait.until(ExpectedConditions.urlContains("#/flows/ui.test/greet"));
        WebElement name = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("in-name")));
        assertThat(name.getAttribute("value")).isEqualTo("world");

        var greeting = new Select(browser.findElement(By.id("in-greeting")));
        assertThat(greeting.getOptions()).extracting(WebElement::getText).containsExactly("Hello", "Hi");
        assertThat(greeting.getFirstSelectedOption().getText()).isEqualTo("Hello");

        // when: run with an input, and one of a SELECT's values
        name.clear();
        name.sendKeys("Ada");
        greeting.selectByVisibleText("Hi");
        browser.findElement(By.id("execute-button")).click();

        // then: the execution's page follows it to its end: state, Gantt, breakdown, logs and outputs
        wait.until(ExpectedConditions.urlContains("#/executions/"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "SUCCESS"));
        assertThat(browser.findElements(By.cssSelector(".gantt .row"))).hasSize(2);
        assertThat(browser.findElements(By.cssSelector(".gantt .bar.state-success"))).hasSize(2);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("logs"), "Hi Ada"));
        assertThat(browser.findElement(By.cssSelector(".breakdown")).getText()).contains("running", "total");
        assertThat(browser.findElements(By.cssSelector("#history li"))).extracting(WebElement::getText)
                .first().asString().startsWith("CREATED");
        assertThat(browser.findElements(By.cssSelector("#history li"))).last().extracting(WebElement::getText)
                .asString().startsWith("SUCCESS");
        assertThat(browser.findElement(By.cssSelector(".details")).getText()).contains("name: \"Ada\"");
        assertThat(browser.findElements(By.xpath("//button[text()='Kill']"))).isEmpty();

        // when: a run opened from the Gantt
        browser.findElement(By.xpath("//div[@class='gantt']//button[text()='answer']")).click();

        // then: its attempt and its outputs as a tree
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run"), "Task run answer"));
        assertThat(browser.findElements(By.cssSelector("#attempts tbody tr"))).hasSize(1);
        assertThat(browser.findElement(By.cssSelector("#run details.node")).getText()).contains("value: \"ADA\"");
        screenshot("ui-execution.png");
        String first = browser.getCurrentUrl();

        // when: replayed from that run
        browser.findElement(By.xpath("//button[text()='Replay from this run']")).click();

        // then: a new execution, which ran it again
        wait.until(ExpectedConditions.not(ExpectedConditions.urlToBe(first)));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "SUCCESS"));
        assertThat(browser.findElements(By.cssSelector(".gantt .row"))).hasSize(2);

        // when: a ForEach of three values, two tasks each
        runNew(LOOP, "loop");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "SUCCESS"));

        // then: its runs under it, grouped by value, and the groups fold
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(".gantt .row"), 10));
        assertThat(browser.findElements(By.cssSelector(".gantt .row.group"))).extracting(row -> row.getText().replace("▾", "").trim())
                .containsExactly("[a] 2 runs", "[b] 2 runs", "[c] 2 runs");
        browser.findElement(By.cssSelector("button[aria-label='Fold [a] 2 runs']")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(".gantt .row"), 8));
        browser.findElement(By.cssSelector("button[aria-label='Fold each']")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(".gantt .row"), 1));
        browser.findElement(By.cssSelector("button[aria-label='Unfold each']")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(".gantt .row"), 8));

        // when: a long execution, killed from its page
        runNew(SLOW, "slow");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "RUNNING"));
        wait.until(ExpectedConditions.elementToBeClickable(By.xpath("//button[text()='Kill']"))).click();

        // then
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "KILLED"));

        // when: a failed execution, restarted from its page
        runNew(BROKEN, "broken");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "FAILED"));
        assertThat(browser.findElement(By.cssSelector("p.error")).getText()).contains("always broken");
        wait.until(ExpectedConditions.elementToBeClickable(By.xpath("//button[text()='Restart']"))).click();

        // then: its failed run tried again, a second attempt in the Gantt, each attempt a bar of its own
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".gantt"), "fail (2 attempts)"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "FAILED"));
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector(".gantt .bar.attempt.state-failed"), 2));

        // when: a paused execution, resumed with an input from the form its Pause task's onResume makes
        runNew(APPROVAL, "approval");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "PAUSED"));
        WebElement reason = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("resume-reason")));
        screenshot("ui-paused.png");
        reason.sendKeys("looks good");
        browser.findElement(By.id("resume-button")).click();

        // then: it goes on with it
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "SUCCESS"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("logs"), "Resumed: looks good"));
        assertThat(browser.findElements(By.id("resume-form"))).isEmpty();

        // when: the list, filtered by flow
        browser.get(ui + "#/executions");
        WebElement flow = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("f-flowId")));
        flow.sendKeys("greet");
        browser.findElement(By.cssSelector("form.filters button")).click();

        // then: only the flow's executions (the first and its replay), each its own link
        wait.until(ExpectedConditions.urlContains("flowId=greet"));
        wait.until(ExpectedConditions.textToBe(By.id("total"), "2 executions"));
        List<WebElement> rows = browser.findElements(By.cssSelector("table.list tbody tr"));
        assertThat(rows).hasSize(2);
        assertThat(rows.getFirst().getText()).contains("greet", "SUCCESS");
        browser.get(ui + "#/executions");
        wait.until(ExpectedConditions.textToBe(By.id("total"), "6 executions"));
        assertThat(browser.findElement(By.id("counts")).getText()).contains("FAILED 1", "KILLED 1", "SUCCESS 4");
        // each row's actions in one click, as its state allows
        assertThat(textsOf(By.xpath("//tr[td/a[text()='broken']]//button"))).containsExactly("Restart", "Replay");
        assertThat(textsOf(By.xpath("//tr[td/a[text()='loop']]//button"))).containsExactly("Replay");
        screenshot("ui-executions.png");

        // and: a count filters the list by its state
        browser.findElement(By.xpath("//nav[@id='counts']/a[contains(., 'SUCCESS')]")).click();
        wait.until(ExpectedConditions.urlContains("state=SUCCESS"));
        wait.until(ExpectedConditions.textToBe(By.id("total"), "4 executions"));

        // and: a label, from the row's chip, and a time range narrow it
        clickAgainIfRedrawn(By.linkText("team:ui crew"));
        wait.until(ExpectedConditions.urlContains("labels=team%3Aui+crew"));
        wait.until(ExpectedConditions.textToBe(By.id("total"), "1 execution"));
        assertThat(browser.findElement(By.id("f-labels")).getAttribute("value")).isEqualTo("team:ui crew");
        browser.get(ui + "#/executions?timeRange=PT1H");
        wait.until(ExpectedConditions.textToBe(By.id("total"), "6 executions"));
        browser.get(ui + "#/executions?endDate=2026-01-01T00:00:00.000Z");
        wait.until(ExpectedConditions.textToBe(By.id("total"), "0 executions"));
        // a link with a date that is none: the API's message, and the page still works
        browser.get(ui + "#/executions?startDate=yesterday");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("toast"), "startDate"));
        assertThat(browser.findElement(By.id("f-startDate")).getAttribute("value")).isEmpty();

        // and: the overview: what started each minute, by state, and the flow that failed
        browser.get(ui + "#/overview");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("failing"), "ui.test.broken"));
        assertThat(browser.findElements(By.cssSelector("#started svg rect"))).isNotEmpty();
        assertThat(browser.findElement(By.cssSelector("#started figcaption")).getText()).startsWith("6 executions");
        assertThat(browser.findElements(By.cssSelector("#started svg rect.fill-failed"))).isNotEmpty();
        screenshot("ui-overview.png");

        // and: the flows list
        browser.get(ui + "#/flows");
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("table.list tbody tr"), 5));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.xpath("//tr[td/a[text()='greet']]/td[@class='last']"), "all 2"));
        assertThat(browser.findElements(By.xpath("//tr[td/a[text()='greet']]/td[@class='last']//span[contains(@class,'state-success')]")))
                .hasSize(2);
        screenshot("ui-flows.png");
    }

    @Test
    @Order(3)
    void shouldShowAFlowsRevisionsAndTheLinesThatChangedBetweenTwo() throws Exception {
        // given: a flow deployed from the editor, then one of its lines changed and deployed again
        browser.get(ui + "#/flows/new");
        type(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("source"))), REVISED);
        wait.until(ExpectedConditions.textToBe(By.id("flow-status"), "Valid"));
        browser.findElement(By.id("deploy")).click();
        wait.until(ExpectedConditions.urlContains("#/flows/ui.revisions/revised"));
        wait.until(ExpectedConditions.textToBe(By.id("flow-status"), "Revision 1"));
        type(browser.findElement(By.id("source")), REVISED.replace("first words", "second words"));
        wait.until(ExpectedConditions.textToBe(By.id("flow-status"), "Valid"));
        browser.findElement(By.id("deploy")).click();
        wait.until(ExpectedConditions.textToBe(By.id("flow-status"), "Revision 2"));

        // when: the flow's page
        browser.get(ui + "#/flows/ui.revisions/revised");

        // then: both revisions to choose from, the previous and the latest chosen, and only the line that changed
        wait.until(ExpectedConditions.textToBe(By.id("diff-summary"), "From revision 1 to revision 2: 1 line added, 1 removed"));
        var from = new Select(browser.findElement(By.id("revision-from")));
        var to = new Select(browser.findElement(By.id("revision-to")));
        assertThat(from.getOptions()).extracting(WebElement::getText).containsExactly("Revision 1", "Revision 2");
        assertThat(from.getFirstSelectedOption().getText()).isEqualTo("Revision 1");
        assertThat(to.getFirstSelectedOption().getText()).isEqualTo("Revision 2");
        assertThat(changedLines()).containsExactly("− message: first words", "+ message: second words");
        assertThat(browser.findElement(By.cssSelector("#diff .diff-fold")).getText()).isEqualTo("… 2 unchanged lines");
        ((JavascriptExecutor) browser).executeScript("document.getElementById('revisions').scrollIntoView()");
        screenshot("ui-revisions.png");

        // and: the older revision loads into the editor, to be deployed again
        browser.findElement(By.id("revision-load")).click();
        assertThat(((JavascriptExecutor) browser).executeScript("return arguments[0].CodeMirror.getValue();",
                browser.findElement(By.id("source")))).isEqualTo(REVISED);

        // when: a link that chooses revision 2 on both sides
        browser.get(ui + "#/flows/ui.revisions/revised?from=2&to=2");

        // then: no change
        wait.until(ExpectedConditions.textToBe(By.id("diff-summary"), "No change from revision 2 to revision 2"));
        assertThat(new Select(browser.findElement(By.id("revision-from"))).getFirstSelectedOption().getText())
                .isEqualTo("Revision 2");
        assertThat(changedLines()).isEmpty();
    }

    /** The diff's added and removed lines, each as its sign and its text. */
    private List<String> changedLines() {
        return browser.findElements(By.cssSelector("#diff tr.diff-removed, #diff tr.diff-added")).stream()
                .map(row -> row.findElement(By.className("sign")).getText() + " "
                        + row.findElement(By.className("text")).getText().strip())
                .toList();
    }

    @Test
    @Order(2)
    void shouldDrawTheFlowsTopologyColouredByTheStatesOfTheExecutionsRuns() throws Exception {
        // given: a flow with a Parallel, an If, a ForEach, a failure, errors and finally, run to its end
        runNew(BRANCHES, "ui.graph", "branches");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "FAILED"));
        wait.until(ExpectedConditions.attributeContains(box("cleanup"), "class", "state-success"));

        // then: a box a task, each coloured by its latest run's state, the state in text too
        WebElement graph = browser.findElement(By.cssSelector(".topology[role='group']"));
        assertThat(graph.getAttribute("aria-label")).startsWith("Topology of ui.graph.branches, revision 1");
        assertThat(graph.findElements(By.cssSelector("[data-task-id]"))).extracting(e -> e.getAttribute("data-task-id"))
                .containsExactlyInAnyOrder("both", "left", "right", "check", "counted", "count", "skipped", "broken",
                        "alert", "cleanup");
        for (String succeeded : List.of("both", "left", "right", "check", "counted", "count", "alert", "cleanup")) {
            assertThat(browser.findElement(box(succeeded)).getAttribute("class")).as(succeeded).contains("state-success");
        }
        assertThat(browser.findElement(box("broken")).getAttribute("class")).contains("state-failed");
        assertThat(browser.findElement(box("broken")).getText()).contains("FAILED");
        assertThat(browser.findElement(box("skipped")).getAttribute("class")).contains("not-run").doesNotContain("state-");
        assertThat(browser.findElement(box("skipped")).getText()).contains("not run");
        assertThat(browser.findElement(box("count")).getText()).contains("×3");
        assertThat(browser.findElement(box("count")).getAttribute("title")).contains("3 runs, the latest SUCCESS");

        // and: the Parallel's tasks side by side, the If's branches named, errors and finally apart and labelled
        assertThat(browser.findElements(By.cssSelector("[data-branch='tasks'] > ul.topo-parallel > li"))).hasSize(2);
        assertThat(browser.findElements(By.cssSelector("[role='group'][aria-label='If check'] [data-branch]")))
                .extracting(e -> e.getAttribute("data-branch")).containsExactly("then", "tasks", "else");
        WebElement errors = browser.findElement(By.cssSelector(".topo-errors[role='group'][aria-label='errors']"));
        assertThat(errors.getText()).startsWith("errors").contains("alert");
        WebElement finallyBranch = browser.findElement(By.cssSelector(".topo-finally[role='group'][aria-label='finally']"));
        assertThat(finallyBranch.getText()).startsWith("finally").contains("cleanup");
        ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView()",
                browser.findElement(By.xpath("//h2[text()='Topology']")));
        screenshot("ui-topology.png");

        // when: the flow's page
        browser.get(ui + "#/flows/ui.graph/branches");

        // then: the same boxes, uncoloured
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#topology [data-task-id]"), 10));
        assertThat(browser.findElements(By.cssSelector("#topology [class*='state-']"))).isEmpty();
    }

    @Test
    @Order(4)
    void shouldSignAViewerInAndOfferNoActionItsGrantsDoNotAllow() throws Exception {
        // given: a gateway that asks for tokens, a viewer of ui.grants, and an execution an admin ran there
        String viewer = "viewer-" + UUID.randomUUID();
        String admin = "admin-" + UUID.randomUUID();
        Path access = Files.writeString(stateDir.resolve("access.yaml"), """
                principals:
                  - name: ada
                    tokens: [%s]
                    grants:
                      "ui.grants": viewer
                  - name: root
                    tokens: [%s]
                    grants:
                      "*": admin
                """.formatted(BearerCalls.sha256(viewer), BearerCalls.sha256(admin)));
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("uigrants", stateDir.resolve("grants"),
                "port", "0", "access-file", access.toString()), null);
        try (Engine guarded = Engine.start(config)) {
            String base = "http://localhost:" + guarded.port();
            assertThat(BearerCalls.call(base + "/api/v1", "POST", "/flows", admin, """
                    id: seen
                    namespace: ui.grants
                    tasks:
                      - id: fail
                        type: io.kestra.plugin.core.execution.Fail
                        errorMessage: read only
                    """).status()).isEqualTo(200);
            var run = BearerCalls.call(base + "/api/v1", "POST", "/executions/ui.grants/seen?wait=true&timeout=PT60S",
                    admin, "{}").json();
            assertThat(run.at("/state/current").asText()).isEqualTo("FAILED");

            // when: the viewer opens the execution and signs in
            browser.get(base + "/ui/#/executions/" + run.path("id").asText());
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(viewer);
            browser.findElement(By.cssSelector("form.card button[type='submit']")).click();

            // then: the execution, and none of the actions a runner has (no Restart, no Replay)
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 + p .state"), "FAILED"));
            wait.until(ExpectedConditions.textToBe(By.id("view-only"), "View only: ada has no runner grant on ui.grants"));
            assertThat(browser.findElements(By.cssSelector(".actions button"))).isEmpty();
            browser.findElement(By.xpath("//div[@class='gantt']//button[text()='fail']")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("run"), "Task run fail"));
            assertThat(browser.findElements(By.xpath("//button[text()='Replay from this run']"))).isEmpty();

            // and: the flow's page shows its source, without Deploy or the execute form
            browser.get(base + "/ui/#/flows/ui.grants/seen");
            wait.until(ExpectedConditions.textToBe(By.id("flow-status"), "Revision 1"));
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view-only"), "ada has no editor grant on ui.grants"));
            assertThat(browser.findElement(By.id("deploy")).isDisplayed()).isFalse();
            assertThat(browser.findElement(By.id("execute")).isDisplayed()).isFalse();
        }
    }

    private static By box(String taskId) {
        return By.cssSelector(".topology [data-task-id='" + taskId + "']");
    }

    /** Deploys {@code source} (of namespace ui.test) from the editor and runs it from its execute form. */
    private void runNew(String source, String id) {
        runNew(source, "ui.test", id);
    }

    /** Deploys {@code source} from the editor and runs it from its execute form, which opens the execution. */
    private void runNew(String source, String namespace, String id) {
        browser.get(ui + "#/flows/new");
        type(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("source"))), source);
        wait.until(ExpectedConditions.textToBe(By.id("flow-status"), "Valid"));
        browser.findElement(By.id("deploy")).click();
        wait.until(ExpectedConditions.urlContains("#/flows/" + namespace + "/" + id));
        wait.until(ExpectedConditions.elementToBeClickable(By.id("execute-button"))).click();
        wait.until(ExpectedConditions.urlContains("#/executions/"));
    }

    /** The texts of elements of a list that is redrawn every few seconds, read again when it was redrawn meanwhile. */
    private List<String> textsOf(By what) {
        return new WebDriverWait(browser, Duration.ofSeconds(30)).ignoring(StaleElementReferenceException.class)
                .until(browser -> browser.findElements(what).stream().map(WebElement::getText).toList());
    }

    /** Clicks an element of a list that is redrawn every few seconds, again when it was redrawn under the click. */
    private void clickAgainIfRedrawn(By what) {
        new WebDriverWait(browser, Duration.ofSeconds(30)).ignoring(StaleElementReferenceException.class)
                .until(browser -> {
                    browser.findElement(what).click();
                    return true;
                });
    }

    /** Replaces the editor's text as a paste would (CodeMirror's own call, which fires its change). */
    private void type(WebElement editor, String text) {
        ((JavascriptExecutor) browser).executeScript("arguments[0].CodeMirror.setValue(arguments[1]);", editor, text);
    }

    /**
     * The screen as its screenshot {@code name}, checked with axe-core's rules first: no violation that axe rates
     * serious or critical.
     */
    @SuppressWarnings("unchecked")
    private void screenshot(String name) throws Exception {
        var js = (JavascriptExecutor) browser;
        js.executeScript(axe);
        var violations = (List<Map<String, Object>>) js.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations
                    .filter(v => v.impact === 'serious' || v.impact === 'critical')
                    .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.html).slice(0, 3)}))));
                """);
        assertThat(violations).as("serious or critical accessibility violations on " + name).isEmpty();
        // an error the page threw, not an answer of the API it showed (a 400 or 404 is logged as a failed load)
        assertThat(browser.manage().logs().get(LogType.BROWSER).getAll()).as("errors in the browser's console up to " + name)
                .filteredOn(entry -> entry.getLevel() == Level.SEVERE && !entry.getMessage().contains("Failed to load resource"))
                .isEmpty();
        Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.createDirectories(SCREENSHOTS);
        Files.copy(shot, SCREENSHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }

    private static String which(String command) throws Exception {
        Process which = new ProcessBuilder("sh", "-c", "command -v " + command).start();
        String path = new String(which.getInputStream().readAllBytes()).trim();
        assertThat(which.waitFor()).as(command + " on the PATH").isZero();
        return path;
    }
}
