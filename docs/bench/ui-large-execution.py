#!/usr/bin/env python3
"""Times the UI on a large execution: deploys a ForEach of N iterations (default 10,000: N + 1 task runs), runs it to
its end, then opens its page in headless Chromium three times, timing each until the state shows SUCCESS and the
Gantt has rows, and times 50 redraws of the Gantt while it scrolls through the whole list.

Usage: docs/bench/ui-large-execution.py [BASE_URL] [N]   (default http://localhost:8080 and 10000)
Needs a running engine (bin/millrace standalone), Debian's chromium and chromedriver (bin/install-chromium) and
Selenium for Python (python3 -m venv /tmp/sel && /tmp/sel/bin/pip install selenium; run with /tmp/sel/bin/python).
"""
import json
import sys
import time
import urllib.request

import headless_chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

base = sys.argv[1] if len(sys.argv) > 1 else 'http://localhost:8080'
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000


def call(path, body, content_type):
    request = urllib.request.Request(base + '/api/v1' + path, data=body.encode(), method='POST',
                                     headers={'Content-Type': content_type})
    with urllib.request.urlopen(request, timeout=600) as answer:
        return json.loads(answer.read())


flow = ('id: large\nnamespace: ui.timing\ntasks:\n  - id: each\n    type: io.kestra.plugin.core.flow.ForEach\n'
        '    values: [' + ','.join(str(i) for i in range(n)) + ']\n    concurrencyLimit: 0\n    tasks:\n'
        '      - id: hi\n        type: io.kestra.plugin.core.debug.Return\n        format: "{{ taskrun.value }}"\n')
call('/flows', flow, 'application/x-yaml')
started = time.monotonic()
execution = call('/executions/ui.timing/large?wait=true&timeout=PT600S', '{}', 'application/json')
print(f"execution {execution['id']}: {execution['state']['current']}, {len(execution['taskRunList'])} task runs, "
      f"{time.monotonic() - started:.1f} s to run")

browser = headless_chromium.start()
try:
    for attempt in range(3):
        browser.get('about:blank')
        opening = time.monotonic()
        browser.get(base + '/ui/#/executions/' + execution['id'])
        WebDriverWait(browser, 60).until(
            lambda b: 'SUCCESS' in b.find_element(By.CSS_SELECTOR, 'h1 + p .state').text
            and b.find_elements(By.CSS_SELECTOR, '.gantt .row'))
        opened = time.monotonic() - opening
        rows = len(browser.find_elements(By.CSS_SELECTOR, '.gantt .row'))
        scrolling = time.monotonic()
        browser.execute_script("""
            const gantt = document.querySelector('.gantt');
            const step = gantt.scrollHeight / 50;
            for (let i = 1; i <= 50; i++) {
              gantt.scrollTop = i * step;
              gantt.dispatchEvent(new Event('scroll'));
            }""")
        scrolled = time.monotonic() - scrolling
        print(f'open {opened:.2f} s, {rows} rows drawn; 50 redraws while scrolling {scrolled * 1000:.0f} ms')
finally:
    browser.quit()
