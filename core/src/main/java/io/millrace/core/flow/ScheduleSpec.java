package io.millrace.core.flow;

import com.cronutils.model.Cron;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code Schedule} trigger, read: its {@code cron} (five Unix fields, or six with {@code withSeconds}, seconds first;
 * the nicknames {@code @yearly @annually @monthly @weekly @daily @midnight @hourly}), evaluated in its
 * {@code timezone} (UTC by default), what to do with dates missed while no instance ran
 * ({@code recoverMissedSchedules}: ALL, the default, LAST or NONE), how late a date may still start
 * ({@code lateMaximumDelay}), and the {@code inputs} of its executions.
 */
public record ScheduleSpec(String expression, boolean withSeconds, ZoneId zone, Recover recover,
        Duration lateMaximumDelay, Map<String, Object> inputs, ExecutionTime times) {

    public enum Recover { ALL, LAST, NONE }

    private static final CronParser UNIX = new CronParser(definition(false));
    private static final CronParser WITH_SECONDS = new CronParser(definition(true));

    private static CronDefinition definition(boolean seconds) {
        var builder = CronDefinitionBuilder.defineCron();
        if (seconds) {
            builder.withSeconds().withValidRange(0, 59).withStrictRange().and();
        }
        return builder
                .withMinutes().withValidRange(0, 59).withStrictRange().and()
                .withHours().withValidRange(0, 23).withStrictRange().and()
                .withDayOfMonth().withValidRange(1, 31).withStrictRange().and()
                .withMonth().withValidRange(1, 12).withStrictRange().and()
                .withDayOfWeek().withValidRange(0, 7).withMondayDoWValue(1).withIntMapping(7, 0).withStrictRange().and()
                .withSupportedNicknameYearly().withSupportedNicknameAnnually().withSupportedNicknameMonthly()
                .withSupportedNicknameWeekly().withSupportedNicknameDaily().withSupportedNicknameMidnight()
                .withSupportedNicknameHourly()
                .instance();
    }

    /** The spec of a parsed (so valid) Schedule trigger. */
    public static ScheduleSpec of(TriggerDef trigger) {
        var problems = new java.util.ArrayList<String>();
        ScheduleSpec spec = read(trigger.properties(), "trigger '" + trigger.id() + "'", problems);
        if (spec == null) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return spec;
    }

    /** Reads the properties, adding each problem (with {@code where}) to {@code problems}; null when there are any. */
    static ScheduleSpec read(Map<String, Object> properties, String where, java.util.List<String> problems) {
        int before = problems.size();
        String expression = String.valueOf(properties.get("cron")).trim();
        boolean withSeconds = Boolean.TRUE.equals(properties.get("withSeconds"));
        ExecutionTime times = null;
        try {
            Cron cron = (withSeconds ? WITH_SECONDS : UNIX).parse(expression);
            times = ExecutionTime.forCron(cron);
        } catch (IllegalArgumentException e) {
            problems.add("Invalid cron expression '" + expression + "' at " + where + ".cron: " + e.getMessage());
        }
        ZoneId zone = ZoneId.of("UTC");
        if (properties.get("timezone") != null) {
            try {
                zone = ZoneId.of(properties.get("timezone").toString());
            } catch (DateTimeException e) {
                problems.add("Unknown timezone '" + properties.get("timezone") + "' at " + where + ".timezone");
            }
        }
        Recover recover = Recover.ALL;
        if (properties.get("recoverMissedSchedules") != null) {
            try {
                recover = Recover.valueOf(properties.get("recoverMissedSchedules").toString().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                problems.add("Expected " + where + ".recoverMissedSchedules to be ALL, LAST or NONE");
            }
        }
        Duration late = null;
        if (properties.get("lateMaximumDelay") != null) {
            try {
                late = Duration.parse(properties.get("lateMaximumDelay").toString());
            } catch (java.time.format.DateTimeParseException e) {
                problems.add("Expected " + where + ".lateMaximumDelay to be an ISO-8601 duration such as PT5M");
            }
        }
        Map<String, Object> inputs = TriggerParser.inputs(properties, where, problems);
        return problems.size() > before ? null
                : new ScheduleSpec(expression, withSeconds, zone, recover, late, inputs, times);
    }

    /** The first date strictly after {@code after}, if the cron has one. */
    public Optional<Instant> next(Instant after) {
        return times.nextExecution(ZonedDateTime.ofInstant(after, zone)).map(ZonedDateTime::toInstant);
    }

    /** The last date strictly before {@code before}, if the cron has one. */
    public Optional<Instant> previous(Instant before) {
        return times.lastExecution(ZonedDateTime.ofInstant(before, zone)).map(ZonedDateTime::toInstant);
    }

    /** {@code trigger.date}, {@code trigger.next} and {@code trigger.previous} of the execution for {@code date}. */
    public Map<String, Object> variables(Instant date) {
        var variables = new LinkedHashMap<String, Object>();
        variables.put("date", format(date));
        next(date).ifPresent(next -> variables.put("next", format(next)));
        previous(date).ifPresent(previous -> variables.put("previous", format(previous)));
        return variables;
    }

    private String format(Instant instant) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(ZonedDateTime.ofInstant(instant.truncatedTo(ChronoUnit.SECONDS), zone));
    }
}
