#!/usr/bin/env python3
"""Checks a fabcheck HTML page in a real browser against the report it was rendered from.

Usage: html_check.py REPORT.json PAGE.html [--expect-gate passed|failed] [--expect-text TEXT ...]

Renders PAGE with headless Chromium once, to a PNG (--screenshot) and to the serialized DOM (--dump-dom), under a
timeout, with a temporary profile that is removed afterwards (also on failure or timeout: the browser's whole
process group is killed). Then asserts on the DOM the browser built:
  - every section id is there (summary, findings, gate, sweeps, latency, pairs, incast, scaling, environment);
  - every busBw plot has exactly one point per measured size of the report, per placement (data-size-bytes);
  - the expected line rate is drawn iff the report knows one (and at that value);
  - every latency histogram has one bar per non-empty bucket; every pair of hosts has its heatmap cells and
    each reported outlier is marked; incast and scaling points match the report's values;
  - every skipped/failed run.sections entry shows its status and reason;
  - no <script> element and no external resource: the page is self-contained; strings from the report arrive
    as text (a report string containing markup must not create elements);
  - the PNG has the window's size and is not blank.
Exit 0 when every check passes; prints one FAIL line per failed check otherwise (exit 1).
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from html.parser import HTMLParser

SECTION_IDS = ["summary", "findings", "gate", "sweeps", "latency", "pairs", "incast", "overlap", "nics", "step", "scaling", "environment"]
WIDTH, HEIGHT = 1280, 2400
BROWSER_TIMEOUT_S = int(os.environ.get("HTML_CHECK_BROWSER_TIMEOUT", "45"))

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, flush=True)
    return cond


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_browser(exe, args, page_url):
    """Runs headless Chromium once with a fresh profile; returns (rc, stdout bytes, seconds)."""
    profile = tempfile.mkdtemp(prefix="fabcheck-chromium-")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--mute-audio", f"--user-data-dir={profile}",
           f"--window-size={WIDTH},{HEIGHT}"] + args + [page_url]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            env=dict(os.environ, HOME=profile))
    try:
        out, err = proc.communicate(timeout=BROWSER_TIMEOUT_S)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        out, err, rc = b"", b"", None
    finally:
        try:  # the browser, its zygote and crashpad share the session: take them all down
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    dt = time.monotonic() - t0
    if rc is None:
        check(False, f"chromium did not finish within {BROWSER_TIMEOUT_S} s ({' '.join(args)})")
    elif rc != 0:
        check(False, f"chromium exit {rc}: {err.decode(errors='replace')[-400:]}")
    check(not os.path.exists(profile), f"chromium profile {profile} left behind")
    return rc, out, dt


class Dom(HTMLParser):
    """Elements as (tag, attrs dict, index of the enclosing <figure>/<section> with an id), texts per id."""

    VOID = {"meta", "link", "br", "hr", "img", "input", "source", "wbr", "col", "area", "base", "embed", "param",
            "track"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []
        self.stack = []  # (tag, id)
        self.text_by_id = {}
        self.notices = []  # (attrs, text)
        self._notice = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        ids = [i for _, i in self.stack if i]
        self.elements.append((tag, a, list(ids)))
        if tag == "p" and "notice" in a.get("class", "").split():
            self._notice = [a, ""]
        if tag not in self.VOID:
            self.stack.append((tag, a.get("id")))

    def handle_startendtag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        self.elements.append((tag, a, [i for _, i in self.stack if i]))

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break
        if tag == "p" and self._notice is not None:
            self.notices.append(tuple(self._notice))
            self._notice = None

    def handle_data(self, data):
        for _, i in self.stack:
            if i:
                self.text_by_id[i] = self.text_by_id.get(i, "") + data
        if self._notice is not None:
            self._notice[1] += data


def within(dom, container_id, tag=None, cls=None, **data):
    out = []
    for t, a, ids in dom.elements:
        if container_id not in ids or (tag and t != tag):
            continue
        if cls and cls not in a.get("class", "").split():
            continue
        if all(a.get(k.replace("_", "-")) == v for k, v in data.items()):
            out.append(a)
    return out


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def line_rate(report):
    """The page's rule (html_sweeps.cpp): pairs.expected_gbps, else the slowest host's fastest ACTIVE port."""
    pairs = report.get("pairs") or {}
    if num(pairs.get("expected_gbps")) and pairs["expected_gbps"] > 0:
        return pairs["expected_gbps"]
    best_per_host = []
    for h in ((report.get("inventory") or {}).get("hosts") or []):
        rates = [p["rate_gbit"] for d in (h.get("rdma_devices") or []) for p in (d.get("ports") or [])
                 if "ACTIVE" in str(p.get("state", "")) and num(p.get("rate_gbit"))]
        if rates:
            best_per_host.append(max(rates))
    return min(best_per_host) / 8 if best_per_host else None


def png_info(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
    idat, pos = b"", 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    return w, h, len(set(raw[: 4 * w * 200]))  # distinct byte values in the first rows: > a few = not blank


def check_dom(report, dom, args):
    ids = {a.get("id") for _, a, _ in dom.elements if a.get("id")}
    for sid in SECTION_IDS:
        check(sid in ids, f"section #{sid} missing")
    check(not any(t == "script" for t, _, _ in dom.elements), "the page has a <script> element")
    for t, a, _ in dom.elements:
        for k in ("src", "href"):
            v = a.get(k, "")
            check(not v or v.startswith("#") or v.startswith("data:"), f"external resource <{t} {k}={v!r}>")

    # busBw plots: one point per measured size and placement
    sweeps = report.get("sweeps") or []
    check(len(within(dom, "sweeps", "figure", "sweep")) == len(sweeps),
          f"{len(within(dom, 'sweeps', 'figure', 'sweep'))} sweep plots for {len(sweeps)} sweeps")
    total = 0
    for i, s in enumerate(sweeps):
        for placement in ("out_of_place", "in_place"):
            want = sorted(p["size_bytes"] for p in s.get("points", [])
                          if p.get("placement", "out_of_place") == placement and num(p.get("busbw_gbps"))
                          and num(p.get("size_bytes")))
            got = sorted(float(a["data-size-bytes"]) for a in within(dom, f"sweep-{i}", "circle", "pt",
                                                                      data_placement=placement))
            check(got == [float(x) for x in want],
                  f"sweep {i} ({s.get('collective')}) {placement}: points at {got}, report sizes {want}")
            total += len(got)
        check(len(want) == 0 or len(set(want)) == len(want), f"sweep {i}: duplicate sizes in the report")
    lr = line_rate(report)
    refs = within(dom, "sweeps", "g", "line-rate")
    if lr:
        check(len(refs) == len(sweeps) and all(abs(float(a["data-line-rate-gbps"]) - lr) < 1e-9 * lr for a in refs),
              f"line rate {lr} GB/s: {len(refs)} reference lines for {len(sweeps)} plots")
    else:
        check(not refs, "a line-rate line although the report knows no line rate")

    # latency: one bar per non-empty bucket
    for i, e in enumerate(report.get("latency") or []):
        buckets = [b for b in (e.get("histogram") or []) if b[2] > 0 and b[1] > b[0]]
        bars = within(dom, f"latency-hist-{i}", "rect", "bar")
        check(len(bars) == len(buckets), f"latency {i}: {len(bars)} bars for {len(buckets)} buckets")
        check(sum(float(a["data-count"]) for a in bars) == sum(b[2] for b in buckets), f"latency {i}: counts differ")
    n_lat = len(report.get("latency") or [])
    check(n_lat == 0 or len(within(dom, "latency", "table", "percentiles")) == 1, "no percentile table")

    # pairs: n(n-1) cells per heatmap, outliers marked
    pairs = report.get("pairs")
    if isinstance(pairs, dict) and pairs.get("bw_gbps"):
        n = len(pairs["hosts"])
        cells = within(dom, "pairs-bw", "rect", "cell")
        check(len(cells) == n * (n - 1), f"pairs: {len(cells)} bandwidth cells for {n} hosts")
        marked = {(a["data-from"], a["data-to"]) for a in cells if a.get("data-outlier") == "true"}
        want = {(o["from"], o["to"]) for o in pairs.get("outliers", []) if o.get("kind") == "bw"}
        check(marked == want, f"pairs: outliers marked {sorted(marked)}, report {sorted(want)}")
        for a in cells:
            i, j = pairs["hosts"].index(a["data-from"]), pairs["hosts"].index(a["data-to"])
            v = pairs["bw_gbps"][i][j]
            check(num(v) and abs(float(a["data-value"]) - v) <= 1e-9 * abs(v) or (v is None and a["data-value"] == "null"),
                  f"pairs cell {a['data-from']}->{a['data-to']}: {a['data-value']} vs {v}")

    # incast: one efficiency point per entry with a value; impact points for mean and p99
    inc = report.get("incast") or []
    eff = [e for e in inc if num(e.get("incast_efficiency")) and num(e.get("fan_in"))]
    pts = within(dom, "incast-efficiency", "circle", "pt")
    check(len(pts) == len(eff), f"incast: {len(pts)} efficiency points for {len(eff)} entries")
    imp = sum(1 for e in inc for k in ("mean", "p99") if num((e.get("congestion_impact") or {}).get(k)))
    check(len(within(dom, "incast-impact", "circle", "pt")) == imp, f"incast: impact points != {imp}")

    # scaling: one point per measured group
    sc = report.get("scaling") if isinstance(report.get("scaling"), dict) else {}
    groups = [g for g in sc.get("groups") or [] if num(g.get("busbw_gbps")) and num(g.get("hosts")) and g["hosts"] > 0]
    got = within(dom, "scaling-busbw", "circle", "pt", data_kind="measured")
    check(len(got) == len(groups), f"scaling: {len(got)} measured points for {len(groups)} groups")

    # skipped / failed sections say why
    for name, s in ((report.get("run") or {}).get("sections") or {}).items():
        if s.get("status") not in ("skipped", "failed"):
            continue
        shown = [t for a, t in dom.notices if a.get("data-section") == name and a.get("data-status") == s["status"]]
        check(shown and (s.get("reason") or "no reason recorded") in shown[0],
              f"section {name} {s['status']} ({s.get('reason')!r}) not shown with its reason")

    # summary
    gate = report.get("gate")
    card = dom.text_by_id.get("gate-result", "")
    if isinstance(gate, dict) and isinstance(gate.get("passed"), bool):
        check(("PASSED" if gate["passed"] else "FAILED") in card, f"gate card says {card!r}")
    verdict = (report.get("transport") or {}).get("verdict")
    if verdict:
        check(verdict in dom.text_by_id.get("transport", ""), f"transport card lacks the verdict {verdict}")
    n_find = len(report.get("findings") or [])
    check(len(within(dom, "findings", "tr")) == n_find + (1 if n_find else 0),
          f"findings table rows != {n_find} findings")
    if args.get("expect_gate"):
        check(args["expect_gate"].upper() in card, f"expected gate {args['expect_gate']}, card says {card!r}")
    for t in args.get("expect_text", []):
        check(any(t in v for v in dom.text_by_id.values()), f"text {t!r} not on the page")
    print(f"html_check: {len(ids)} ids, {total} busBw points in {len(sweeps)} plots, "
          f"{len(report.get('latency') or [])} histograms, {len(inc)} incast entries, {len(groups)} groups", flush=True)


def main():
    argv = sys.argv[1:]
    if len(argv) < 2:
        print(__doc__)
        return 2
    report_path, page = argv[0], argv[1]
    args = {"expect_text": []}
    k = 2
    while k < len(argv):
        if argv[k] == "--expect-gate":
            args["expect_gate"] = argv[k + 1]
        elif argv[k] == "--expect-text":
            args["expect_text"].append(argv[k + 1])
        k += 2
    exe = browser()
    if not exe:
        print("FAIL: no chromium (ci/setup installs Debian's chromium)")
        return 1
    with open(report_path) as f:
        report = json.load(f)
    url = "file://" + os.path.abspath(page)
    with tempfile.TemporaryDirectory(prefix="fabcheck-html-") as tmp:
        png = os.path.join(tmp, "page.png")
        # one browser start renders both: the PNG (--screenshot) and the DOM it built (--dump-dom on stdout)
        rc, out, dt = run_browser(exe, [f"--screenshot={png}", "--hide-scrollbars", "--dump-dom"], url)
        print(f"html_check: chromium rendered the page in {dt:.1f} s", flush=True)
        if check(os.path.exists(png), "no screenshot written"):
            info = png_info(png)
            check(info is not None, "screenshot is not a PNG")
            if info:
                check(info[:2] == (WIDTH, HEIGHT), f"screenshot {info[0]}x{info[1]}, window {WIDTH}x{HEIGHT}")
                check(info[2] > 8, f"screenshot looks blank ({info[2]} distinct byte values)")
            if os.environ.get("HTML_CHECK_KEEP"):
                shutil.copy(png, os.environ["HTML_CHECK_KEEP"])
        if check(rc == 0 and b"<html" in out, "no DOM dump"):
            dom = Dom()
            dom.feed(out.decode("utf-8", errors="replace"))
            check_dom(report, dom, args)
    if failures:
        print(f"html_check: {len(failures)} check(s) failed for {page}")
        return 1
    print(f"html_check: OK {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
