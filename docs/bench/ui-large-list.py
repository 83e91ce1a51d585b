#!/usr/bin/env python3
"""Times the executions list over a large index: starts N executions (default 100,000) of a one-task flow through the
REST API, waits until the search finds them all, then times the search's answers (first page, filtered, a deep page)
and the list's page in headless Chromium: opening it until the total shows, a click on a state's count until the list
is filtered, and the searches its refresh makes every 2 s.

Usage: docs/bench/ui-large-list.py [BASE_URL] [N]   (default http://localhost:8080 and 100000)
Needs a running engine (bin/millrace standalone), Debian's chromium and chromedriver (bin/install-chromium) and
Selenium for Python (python3 -m venv /tmp/sel && /tmp/sel/bin/pip install selenium; run with /tmp/sel/bin/python).
"""
import json
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request

import headless_chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

base = sys.argv[1] if len(sys.argv) > 1 else 'http://localhost:8080'
n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
THREADS = 8


def call(path, body=None, content_type='application/json'):
    request = urllib.request.Request(base + '/api/v1' + path, data=None if body is None else body.encode(),
                                     method='GET' if body is None else 'POST', headers={'Content-Type': content_type})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


call('/flows', 'id: tiny\nnamespace: ui.list\ntasks:\n  - id: hi\n    type: io.kestra.plugin.core.debug.Return\n'
     '    format: "{{ execution.id }}"\n', 'application/x-yaml')
refused = [0]


def start(count):
    for i in range(count):
        while True:
            try:
                call('/executions/ui.list/tiny', json.dumps({'labels': {'half': str(i % 2)}}))
                break
            except urllib.error.HTTPError as e:
                if e.code not in (429, 503):
                    raise
                refused[0] += 1
                time.sleep(0.05)


starting = time.monotonic()
threads = [threading.Thread(target=start, args=(n // THREADS + (1 if t < n % THREADS else 0),)) for t in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f'{n} starts answered in {time.monotonic() - starting:.0f} s ({refused[0]} refused and tried again)')
while call('/executions/search?namespace=ui.list&state=SUCCESS&size=1')['total'] < n:
    time.sleep(2)
print(f'all {n} SUCCESS in the index after {time.monotonic() - starting:.0f} s')


def timed(path, times=20):
    took = []
    for _ in range(times):
        at = time.monotonic()
        call(path)
        took.append((time.monotonic() - at) * 1000)
    took.sort()
    return f'p50 {statistics.median(took):.0f} ms, max {took[-1]:.0f} ms'


for label, path in [('first page of all', '/executions/search?size=25'),
                    ('first page of the flow', '/executions/search?namespace=ui.list&flowId=tiny&size=25'),
                    ('a state', '/executions/search?state=FAILED&size=25'),
                    ('a label', '/executions/search?labels=half:1&size=25'),
                    ('the last 5 minutes', '/executions/search?timeRange=PT5M&size=25'),
                    ('page 2,000 of 25', '/executions/search?size=25&page=2000')]:
    print(f'search, {label}: {timed(path)}')

browser = headless_chromium.start()
try:
    for attempt in range(3):
        browser.get('about:blank')
        opening = time.monotonic()
        browser.get(base + '/ui/#/executions')
        WebDriverWait(browser, 60).until(
            lambda b: b.find_element(By.ID, 'total').text.startswith(f'{n:d} ')
            or b.find_element(By.ID, 'total').text.replace(',', '').startswith(f'{n} '))
        opened = time.monotonic() - opening
        rows = len(browser.find_elements(By.CSS_SELECTOR, 'table.list tbody tr'))
        clicking = time.monotonic()
        browser.find_element(By.XPATH, "//nav[@id='counts']/a[contains(., 'SUCCESS')]").click()
        WebDriverWait(browser, 60).until(lambda b: 'state=SUCCESS' in b.current_url
                                         and b.find_elements(By.CSS_SELECTOR, "#counts a[aria-current]"))
        filtered = time.monotonic() - clicking
        time.sleep(10)
        searches = browser.execute_script("""
            return performance.getEntriesByType('resource').filter(e => e.name.includes('/executions/search'))
              .map(e => e.duration);""")
        print(f'list open {opened:.2f} s ({rows} rows); a count clicked to its list {filtered:.2f} s; '
              f'{len(searches)} searches while open, p50 {statistics.median(searches):.0f} ms, '
              f'max {max(searches):.0f} ms')
finally:
    browser.quit()
