package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class IngestBenchTest {
    @Test
    void shouldDrawThreeBarsACaseWithTheTriggersShareOfTheRawConsumer() {
        // given
        var rows = List.of(new IngestBench.Row(256, 1, 100_000, 400_000, 100_000, 40_000),
                new IngestBench.Row(65_536, 16, 2_048, 10_000, 5_000, 2_500));

        // when
        String svg = IngestBench.svg(rows);

        // then
        assertThat(svg).startsWith("<svg").endsWith("</svg>\n");
        assertThat(svg.split("<title>", -1)).hasSize(7);
        assertThat(svg).contains("<title>raw consumer 400,000/s</title>", "<title>trigger 2,500/s</title>",
                "256 B × 1", "64 KiB × 16", "10 % of raw", "25 % of raw");
    }
}
