#!/usr/bin/env python3
"""Draws a Grafana dashboard's panels from a Prometheus' answers to their queries, for the docs (no Grafana needed).

Usage: render_dashboard.py PROMETHEUS_URL DASHBOARD_JSON OUT_PNG [MINUTES]

Every panel's targets are queried over the last MINUTES (default 10) with query_range, with Grafana's
$__rate_interval replaced by 1m; the panels keep the dashboard's layout (gridPos) and titles.
Needs matplotlib (pip install matplotlib).
"""
import json
import sys
import time
import urllib.parse
import urllib.request
from datetime import datetime

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

VARIABLES = {"$__rate_interval": "1m", "${__rate_interval}": "1m", "$__interval": "15s", "$__range": "10m"}
UNITS = {"s": "s", "ms": "ms", "ops": "/s", "reqps": "req/s", "percentunit": "", "bytes": "bytes", "short": ""}


def query_range(prometheus, expr, start, end, step):
    url = prometheus.rstrip("/") + "/api/v1/query_range?" + urllib.parse.urlencode(
        {"query": expr, "start": start, "end": end, "step": step})
    with urllib.request.urlopen(url, timeout=60) as answer:
        body = json.load(answer)
    if body.get("status") != "success":
        raise SystemExit(f"Prometheus refused {expr}: {body}")
    return body["data"]["result"]


def legend(fmt, labels):
    text = fmt or "{{__name__}}"
    for key, value in labels.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    prometheus, dashboard_path, out = sys.argv[1:4]
    minutes = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    with open(dashboard_path) as f:
        dashboard = json.load(f)
    panels = [p for p in dashboard["panels"] if p.get("type") != "row"]
    end = time.time()
    start = end - minutes * 60
    rows = sorted({p["gridPos"]["y"] for p in panels})
    fig = plt.figure(figsize=(18, 3.2 * len(rows)), facecolor="#111217")
    grid = fig.add_gridspec(len(rows), 24, hspace=0.55, wspace=1.2, top=0.95, bottom=0.03, left=0.03, right=0.99)
    for panel in panels:
        pos = panel["gridPos"]
        ax = fig.add_subplot(grid[rows.index(pos["y"]), pos["x"]:pos["x"] + pos["w"]])
        ax.set_facecolor("#181b1f")
        unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "short")
        for target in panel["targets"]:
            expr = target["expr"]
            for name, value in VARIABLES.items():
                expr = expr.replace(name, value)
            for series in query_range(prometheus, expr, start, end, 15):
                xs = [datetime.fromtimestamp(float(t)) for t, _ in series["values"]]
                ys = [float(v) * (100 if unit == "percentunit" else 1) for _, v in series["values"]]
                label = legend(target.get("legendFormat"), series["metric"])
                ax.plot(xs, ys, linewidth=1.3, label=label[:48])
        ax.set_title(panel["title"] + (f" ({UNITS.get(unit, unit)})" if UNITS.get(unit, unit) else "")
                     + (" (%)" if unit == "percentunit" else ""), color="#d8d9da", fontsize=10, loc="left")
        ax.tick_params(colors="#9fa7b3", labelsize=7)
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
        for spine in ax.spines.values():
            spine.set_color("#2c3235")
        ax.grid(color="#2c3235", linewidth=0.5)
        if ax.lines:
            ax.legend(fontsize=6, loc="upper left", framealpha=0.3, labelcolor="#d8d9da", facecolor="#181b1f",
                      edgecolor="#2c3235", ncol=1 if len(ax.lines) < 4 else 2)
        else:
            ax.text(0.5, 0.5, "no data", color="#9fa7b3", ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(dashboard["title"] + f" (last {minutes} minutes, rendered from Prometheus)", color="#d8d9da",
                 fontsize=13, x=0.03, y=0.985, ha="left")
    fig.savefig(out, dpi=90, facecolor=fig.get_facecolor(), bbox_inches="tight")
    print("wrote " + out)


if __name__ == "__main__":
    main()
