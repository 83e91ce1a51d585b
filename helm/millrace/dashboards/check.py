#!/usr/bin/env python3
"""Checks Millrace's Grafana dashboards against a live engine, with a real Prometheus.

Usage: check.py PROMETHEUS_DIR METRICS_TARGET [SECONDS]

PROMETHEUS_DIR holds bin/prometheus and bin/promtool; METRICS_TARGET is host:port of a Millrace management port
(its /metrics is scraped). For every dashboard JSON beside this script:
  1. the JSON has what Grafana needs: uid, title, schemaVersion, panels with gridPos, datasource and targets, each
     target with refId and expr, panel ids unique, the ${datasource} variable;
  2. every panel query, its Grafana variables replaced by concrete values, parses: promtool checks them all as
     recording rules (Prometheus' own parser);
  3. Prometheus scrapes the engine every second for SECONDS (default 20), then evaluates every query: each must
     answer with at least one series with a finite value, and every metric name the query names must be one that
     Prometheus scraped. Queries may not use `or`, `unless` or absent(), which answer without the metric they name.
Exits 0 when all hold; otherwise prints every problem and exits 1.
"""
import glob
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SCRAPE_INTERVAL_S = 1
# Grafana's variables, as a dashboard with the check's scrape interval would get them
VARIABLES = {"$__rate_interval": "10s", "${__rate_interval}": "10s", "$__interval": "2s", "${__interval}": "2s",
             "$__range": "1m", "${__range}": "1m"}
PROMQL_WORDS = {
    # aggregations and their modifiers
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile",
    "limitk", "limit_ratio", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "and",
    "or", "unless", "atan2", "inf", "nan",
    # functions
    "abs", "absent", "absent_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min", "day_of_month",
    "day_of_week", "day_of_year", "days_in_month", "delta", "deriv", "exp", "floor", "histogram_quantile",
    "histogram_count", "histogram_sum", "histogram_fraction", "holt_winters", "hour", "idelta", "increase", "irate",
    "label_join", "label_replace", "ln", "log2", "log10", "minute", "month", "predict_linear", "rate", "resets",
    "round", "scalar", "sgn", "sort", "sort_desc", "sqrt", "time", "timestamp", "vector", "year", "avg_over_time",
    "min_over_time", "max_over_time", "sum_over_time", "count_over_time", "quantile_over_time", "stddev_over_time",
    "stdvar_over_time", "last_over_time", "present_over_time", "acos", "acosh", "asin", "asinh", "atan", "atanh",
    "cos", "cosh", "sin", "sinh", "tan", "tanh", "deg", "rad", "pi",
}
FORBIDDEN = re.compile(r"\b(or|unless)\b|\babsent(_over_time)?\s*\(")


def fail_fast(message):
    print("dashboards check: " + message, file=sys.stderr)
    sys.exit(2)


def concrete(expr):
    for name, value in VARIABLES.items():
        expr = expr.replace(name, value)
    return expr


def metric_names(expr):
    """The metric names a PromQL expression selects: identifiers that are not functions, keywords or labels."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)  # strings
    text = re.sub(r"\{[^{}]*\}", " ", text)  # label matchers
    text = re.sub(r"\[[^\[\]]*\]", " ", text)  # ranges and subqueries
    # label lists of grouping and matching modifiers
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", " ", text)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        word = match.group(0)
        before = text[:match.start()].rstrip()
        if word in PROMQL_WORDS or (before and before[-1].isdigit()):
            continue  # a keyword, or the unit of a number like 1e3
        names.add(word)
    return names


def validate(path, dashboard):
    problems = []
    for key in ("uid", "title", "panels", "schemaVersion"):
        if key not in dashboard:
            problems.append(f"{path}: no '{key}'")
    if dashboard.get("schemaVersion", 0) < 39:
        problems.append(f"{path}: schemaVersion {dashboard.get('schemaVersion')} is older than 39")
    variables = [v.get("name") for v in dashboard.get("templating", {}).get("list", [])]
    if "datasource" not in variables:
        problems.append(f"{path}: no 'datasource' template variable")
    ids = set()
    for panel in dashboard.get("panels", []):
        where = f"{path}: panel {panel.get('id')} '{panel.get('title')}'"
        if panel.get("id") in ids:
            problems.append(f"{where}: id used twice")
        ids.add(panel.get("id"))
        grid = panel.get("gridPos", {})
        if not all(isinstance(grid.get(k), int) for k in ("h", "w", "x", "y")) or grid.get("x", 0) + grid.get("w", 0) > 24:
            problems.append(f"{where}: gridPos needs whole h, w, x, y within 24 columns")
        if panel.get("type") == "row":
            continue
        if not panel.get("title"):
            problems.append(f"{where}: no title")
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"{where}: datasource is not ${{datasource}}")
        targets = panel.get("targets") or []
        if not targets:
            problems.append(f"{where}: no targets")
        for target in targets:
            if not target.get("refId") or not target.get("expr"):
                problems.append(f"{where}: a target without refId or expr")
            if target.get("datasource", {}).get("uid") != "${datasource}":
                problems.append(f"{where}: target {target.get('refId')} datasource is not ${{datasource}}")
    return problems


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def query(port, expr):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as e:
        return json.load(e)


def main():
    if len(sys.argv) < 3:
        fail_fast(__doc__)
    prometheus_dir, target = sys.argv[1], sys.argv[2]
    # stopped from outside (a test's timeout): still stop Prometheus and remove its data, in the finally blocks
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    prometheus = os.path.join(prometheus_dir, "bin", "prometheus")
    promtool = os.path.join(prometheus_dir, "bin", "promtool")
    started = time.monotonic()

    files = sorted(glob.glob(os.path.join(HERE, "*.json")))
    if not files:
        fail_fast("no dashboards (*.json) in " + HERE)
    problems, queries = [], []
    for path in files:
        name = os.path.basename(path)
        try:
            with open(path) as f:
                dashboard = json.load(f)
        except ValueError as e:
            problems.append(f"{name}: not JSON: {e}")
            continue
        problems += validate(name, dashboard)
        for panel in dashboard.get("panels", []):
            for t in panel.get("targets") or []:
                if t.get("expr"):
                    queries.append((f"{name}: panel '{panel.get('title')}' {t.get('refId')}", concrete(t["expr"])))
    for where, expr in queries:
        if FORBIDDEN.search(expr):
            problems.append(f"{where}: uses or/unless/absent, which answer without the metrics they name: {expr}")
        if "$" in expr:
            problems.append(f"{where}: a variable the check does not know: {expr}")

    work = tempfile.mkdtemp(prefix="millrace-dashboards-")
    try:
        # 2. Prometheus' parser, through promtool, on every query as a recording rule
        with open(os.path.join(work, "rules.json"), "w") as f:
            json.dump({"groups": [{"name": "dashboards", "rules": [
                {"record": f"millrace_dashboard_query_{i}", "expr": expr} for i, (_, expr) in enumerate(queries)]}]}, f)
        parsed = subprocess.run([promtool, "check", "rules", os.path.join(work, "rules.json")],
                                capture_output=True, text=True)
        if parsed.returncode != 0:
            problems.append("promtool check rules failed:\n" + parsed.stdout + parsed.stderr)
            for i, (where, _) in enumerate(queries):
                if f"millrace_dashboard_query_{i}\"" in parsed.stdout + parsed.stderr:
                    problems.append(f"  (rule {i} is {where})")

        # 3. a real Prometheus scraping the engine, evaluating every query
        port = free_port()
        with open(os.path.join(work, "prometheus.yml"), "w") as f:
            f.write(f"global:\n  scrape_interval: {SCRAPE_INTERVAL_S}s\n  evaluation_interval: {SCRAPE_INTERVAL_S}s\n"
                    f"scrape_configs:\n  - job_name: millrace\n    static_configs:\n      - targets: ['{target}']\n")
        log = open(os.path.join(work, "prometheus.log"), "w")
        server = subprocess.Popen([prometheus, "--config.file=" + os.path.join(work, "prometheus.yml"),
                                   "--storage.tsdb.path=" + os.path.join(work, "data"),
                                   f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    up = query(port, 'up{job="millrace"}')
                    if up.get("status") == "success" and up["data"]["result"] and up["data"]["result"][0]["value"][1] == "1":
                        break
                except OSError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    with open(os.path.join(work, "prometheus.log")) as f:
                        fail_fast(f"Prometheus did not scrape {target}:\n" + f.read()[-3000:])
                time.sleep(0.5)
            time.sleep(seconds)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/label/__name__/values", timeout=30) as answer:
                names = set(json.load(answer)["data"])
            for where, expr in queries:
                missing = sorted(metric_names(expr) - names)
                if missing:
                    problems.append(f"{where}: names metrics the engine does not export: {', '.join(missing)}")
                answer = query(port, expr)
                if answer.get("status") != "success":
                    problems.append(f"{where}: Prometheus refused the query: {answer.get('error')}: {expr}")
                    continue
                result = answer["data"]["result"]
                values = [float(r["value"][1]) for r in result] if answer["data"]["resultType"] == "vector" else []
                if not any(math.isfinite(v) for v in values):
                    problems.append(f"{where}: no data ({len(result)} series, none with a finite value): {expr}")
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
            log.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    took = time.monotonic() - started
    if problems:
        print(f"dashboards check: {len(problems)} problem(s) in {len(files)} dashboards, {len(queries)} queries:")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print(f"dashboards check: {len(files)} dashboards, {len(queries)} queries: all parse, name scraped metrics and "
          f"answer with data ({took:.0f} s)")


if __name__ == "__main__":
    main()
