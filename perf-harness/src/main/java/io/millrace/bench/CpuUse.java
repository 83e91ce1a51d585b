package io.millrace.bench;

import java.util.Map;

/**
 * CPU the engine used in a measurement window, in percent of one core.
 *
 * @param totalPct  all engine processes; NaN when unknown
 * @param byPartPct per part of the engine; empty when unknown, and a part that used nothing may be absent
 */
public record CpuUse(double totalPct, Map<EnginePart, Double> byPartPct) {

    static final CpuUse UNKNOWN = new CpuUse(Double.NaN, Map.of());

    public CpuUse {
        byPartPct = Map.copyOf(byPartPct);
    }

    /** The part's share: 0 when it used nothing, NaN when the parts are unknown. */
    public double pct(EnginePart part) {
        return byPartPct.isEmpty() ? Double.NaN : byPartPct.getOrDefault(part, 0.0);
    }
}
