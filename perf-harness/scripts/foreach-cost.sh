#!/usr/bin/env bash
# The executor's CPU per task run as a ForEach grows: starts a standalone engine (this build), runs a ForEach over
# 100, 1,000 and 10,000 values (concurrencyLimit 50, each a Log) twice each, and prints the CPU the executor's stream
# threads and the whole process spent per task run, read from /proc. Linux only. Usage: foreach-cost.sh [sizes...]
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=("${@:-100 1000 10000}")
work=$(mktemp -d)
port=18091
kafka=19193
JAVA_HOME="$(bin/java-home)" bin/millrace standalone --data-dir "$work/data" --port $port --kafka-port $kafka \
    > "$work/engine.log" 2>&1 &
engine=$!
trap 'kill $engine 2>/dev/null; wait $engine 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 60); do curl -sf "http://localhost:$port/health" >/dev/null && break; sleep 1; done
# the launcher execs java, so its pid is the engine's JVM
cpu() { # thread-name prefix (15 chars, as /proc shows them) -> CPU ms
    python3 - "$engine" <<'PY'
import os, sys, collections
pid = sys.argv[1]; total = collections.Counter()
for t in os.listdir(f'/proc/{pid}/task'):
    try: st = open(f'/proc/{pid}/task/{t}/stat').read()
    except FileNotFoundError: continue
    fields = st[st.rindex(')') + 2:].split()
    total[st[st.index('(') + 1:st.rindex(')')][:15]] += (int(fields[11]) + int(fields[12])) * 1000 // os.sysconf('SC_CLK_TCK')
print(total['millrace.execut'], sum(total.values()))
PY
}
printf '%8s %8s %9s %22s %22s\n' values runs wall_s executor_ms_per_run process_ms_per_run
for round in 1 2; do
  for n in ${sizes[@]}; do
    curl -sf -X POST -H 'Content-Type: application/x-yaml' --data-binary @- "http://localhost:$port/api/v1/flows" \
        >/dev/null <<YAML
id: foreach-$n
namespace: bench.cost
tasks:
  - id: each
    type: io.kestra.plugin.core.flow.ForEach
    values: "{{ range(1, $n) }}"
    concurrencyLimit: 50
    tasks:
      - {id: log, type: io.kestra.plugin.core.log.Log, message: "{{ taskrun.value }}"}
YAML
    read -r e0 p0 < <(cpu); t0=$(date +%s.%N)
    runs=$(curl -sf -X POST -H 'Content-Type: application/json' \
        "http://localhost:$port/api/v1/executions/bench.cost/foreach-$n?wait=true&timeout=PT600S" \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["state"]["current"] == "SUCCESS", d["state"]; print(len(d["taskRunList"]))')
    t1=$(date +%s.%N); read -r e1 p1 < <(cpu)
    [ "$round" = 2 ] && python3 -c "print('%8d %8d %9.2f %22.3f %22.3f' % ($n, $runs, $t1 - $t0, ($e1 - $e0) / $runs, ($p1 - $p0) / $runs))"
  done
done
