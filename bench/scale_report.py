#!/usr/bin/env python3
"""Scales a real fabcheck report to N hosts x R ranks per host (reports at scale).

    bench/scale_report.py SEED.json --hosts 2048 --ranks-per-host 8 --out R.json
    bench/scale_report.py SEED.json --hosts 2048 --ranks-per-host 8 --change-links 5 --out R2.json

SEED is a report fabcheck wrote on 2 or more hosts with a pairs section (tests/data/reports/vfabric-4x2.json:
4 hosts x 2 ranks of the virtual fabric). Every section is scaled from it with the shape fabcheck writes
(docs/DESIGN.md §6): topology and inventory (one copy of the seed's first host per host, renamed), transport
per host, the pairs matrices (bandwidth per direction, latency p50/p99/min per pair; the seed's medians with
a 3 % spread; one slow host and a few slow links planted, listed as confirmed outliers with the suspect),
the pairs schedule (circle method), latency per pair (ring of host leaders) with stragglers and spikes,
collective stragglers per rank, incast fan-in up to 64 senders, scaling groups 2, 4, ... N hosts, and the
findings the planted faults give. Sweeps, histograms and percentiles are the seed's own numbers.

Matrix cells are written with 4 significant digits (a measured bandwidth or latency has no more): a
2048-host report is ~170 MB, not the ~400 MB the full doubles would take.

The same --seed gives the same report; --change-links K then multiplies K bandwidth links (chosen away from
the planted faults) by --change-factor, so `fabcheck compare R R2` has exactly those K links to find. They are
written to OUT.changed.json ([{"from", "to", "a", "b"}]).

Python 3 standard library only; writes the matrices row by row, so memory stays at a few hundred MB.
"""
import argparse
import copy
import json
import random
import sys


def host_name(i):
    return f"node{i + 1:04d}"


def renamed(obj, mapping):
    """A deep copy of obj whose strings equal to (or starting with "<seed host>:") a seed host are renamed."""
    text = json.dumps(obj)
    for old, new in mapping.items():
        text = text.replace(f'"{old}"', f'"{new}"').replace(f'"{old}:', f'"{new}:').replace(f" {old}:", f" {new}:")
    return json.loads(text)


def fmt4(v):
    return f"{v:.4g}"


def jitter_pool(rng, center, spread, size=4096):
    """Pre-formatted values around center (a normal spread, relative): cells pick from it."""
    vals = [center * max(0.5, rng.gauss(1.0, spread)) for _ in range(size)]
    return vals, [fmt4(v) for v in vals]


def circle_schedule(names):
    """The circle method (DESIGN §5 pairs): n - 1 rounds for even n, n rounds with a bye for odd n."""
    n = len(names)
    idx = list(range(n)) + ([None] if n % 2 else [])
    m = len(idx)
    rounds = []
    for _ in range(m - 1):
        pairs = []
        for k in range(m // 2):
            a, b = idx[k], idx[m - 1 - k]
            if a is not None and b is not None:
                pairs.append([names[a], names[b]])
        rounds.append(pairs)
        idx = [idx[0]] + [idx[-1]] + idx[1:-1]
    return rounds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed_report")
    ap.add_argument("--hosts", type=int, required=True)
    ap.add_argument("--ranks-per-host", type=int, default=8)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=21, help="random seed (same seed, same report)")
    ap.add_argument("--slow-host", type=int, default=1, help="slow hosts planted (bandwidth x0.4 both ways)")
    ap.add_argument("--slow-links", type=int, default=3, help="slow links planted (bandwidth x0.3)")
    ap.add_argument("--change-links", type=int, default=0, help="links to change (for compare R R2)")
    ap.add_argument("--change-factor", type=float, default=0.7, help="factor of a changed link's bandwidth")
    a = ap.parse_args()
    n, rph = a.hosts, a.ranks_per_host
    if n < 4 or rph < 1:
        sys.exit("scale_report: --hosts >= 4 and --ranks-per-host >= 1")
    seed = json.load(open(a.seed_report))
    if not isinstance(seed.get("pairs"), dict) or len(seed["pairs"].get("hosts", [])) < 2:
        sys.exit("scale_report: the seed report needs a pairs section (a run on 2 or more hosts)")
    rng = random.Random(a.seed)
    names = [host_name(i) for i in range(n)]
    seed_hosts = [h["host"] for h in seed["topology"]["hosts"]]
    to_first = {h: names[0] for h in seed_hosts}  # per-host templates: the seed's first host
    nranks = n * rph
    doc = copy.deepcopy(seed)
    doc["_source"] = (
        f"bench/scale_report.py {a.seed_report} --hosts {n} --ranks-per-host {rph} --seed {a.seed}"
        f" --slow-host {a.slow_host} --slow-links {a.slow_links} --change-links {a.change_links}"
        f" --change-factor {a.change_factor}: a synthetic report scaled from a real one"
    )

    # ---- topology, inventory, transport ----
    doc["topology"]["nranks"] = nranks
    doc["topology"]["hosts"] = [{"host": names[i], "ranks": list(range(i * rph, (i + 1) * rph))} for i in range(n)]
    inv_t = json.dumps(renamed(seed["inventory"]["hosts"][0], to_first))
    doc["inventory"]["hosts"] = [json.loads(inv_t.replace(f'"{names[0]}', f'"{h}')) for h in names]
    if isinstance(seed.get("transport"), dict) and seed["transport"].get("per_host"):
        ph_t = json.dumps(renamed(seed["transport"]["per_host"][0], to_first))
        doc["transport"]["per_host"] = [json.loads(ph_t.replace(f'"{names[0]}"', f'"{h}"')) for h in names]
    for s in doc.get("sweeps") or []:
        s["nranks"] = nranks

    # ---- pairs ----
    p = doc["pairs"]
    bw_med = p["bw_median_gbps"]
    lat_med = p["lat_median_us"]

    def off(m):
        return [v for i, r in enumerate(m) for j, v in enumerate(r) if i != j and v is not None]

    def ratio(num, den):
        xs = sorted(x / y for x, y in zip(off(p[num]), off(p[den])) if y)
        return xs[len(xs) // 2] if xs else 1.0

    r99, rmin = ratio("lat_p99_us", "lat_p50_us"), ratio("lat_min_us", "lat_p50_us")
    bw_vals, bw_pool = jitter_pool(rng, bw_med, 0.03)
    lat_vals, lat_pool = jitter_pool(rng, lat_med, 0.03)
    k = len(bw_pool)
    slow_hosts = sorted({(n // 3 + 7 * h) % n for h in range(a.slow_host)})
    slow_links = []
    while len(slow_links) < a.slow_links:
        i, j = rng.randrange(n), rng.randrange(n)
        if i != j and i not in slow_hosts and j not in slow_hosts and (i, j) not in slow_links:
            slow_links.append((i, j))
    crng = random.Random(a.seed * 7919 + 1)  # the changed links do not depend on --change-links' count
    changed = []
    while len(changed) < a.change_links:
        i, j = crng.randrange(n), crng.randrange(n)
        if i == j or i in slow_hosts or j in slow_hosts or (i, j) in slow_links or (i, j) in changed:
            continue
        changed.append((i, j))
    special = {}  # (i, j) -> bw value
    for h in slow_hosts:
        for o in range(n):
            if o != h:
                special[(h, o)] = special[(o, h)] = bw_med * 0.4
    for ij in slow_links:
        special[ij] = bw_med * 0.3
    changed_out = []
    # The bandwidth rows, drawn once per row from the pool (same seed, same draws: R and R2 differ only in the
    # changed links).
    bw_rows = []
    for i in range(n):
        idx = [rng.randrange(k) for _ in range(n)]
        row = [bw_pool[x] for x in idx]
        row[i] = "null"
        bw_rows.append((idx, row))
    for (i, j), v in special.items():
        bw_rows[i][1][j] = fmt4(v)
    for i, j in changed:
        before = float(bw_rows[i][1][j])
        after = float(fmt4(before * a.change_factor))
        bw_rows[i][1][j] = fmt4(after)
        changed_out.append({"from": names[i], "to": names[j], "a": before, "b": after})
    # Latency: symmetric, the upper triangle drawn, mirrored.
    lat_idx = [[rng.randrange(k) for _ in range(n - i - 1)] for i in range(n)]

    def lat_row(i, scale):
        cells = [lat_idx[j][i - j - 1] for j in range(i)] + [None] + lat_idx[i]
        if scale == 1.0:
            return ",".join("null" if c is None else lat_pool[c] for c in cells)
        return ",".join("null" if c is None else fmt4(lat_vals[c] * scale) for c in cells)

    mad_bw = sorted(abs(v - bw_med) for v in bw_vals)[k // 2] or bw_med * 0.02
    outliers = []
    for (i, j), v in sorted(special.items()):
        outliers.append({"confirmed": True, "from": names[i], "kind": "bw", "median": bw_med, "rule": "robust_z",
                         "to": names[j], "value": float(fmt4(v)), "z": (v - bw_med) / (1.4826 * mad_bw)})
    p["hosts"] = names
    p["ranks"] = [i * rph for i in range(n)]
    p["outliers"] = outliers
    p["suspects"] = [
        {"confirmed": True, "host": names[h], "in_flagged": n - 1, "in_links": n - 1, "lat_flagged": 0,
         "lat_links": n - 1, "out_flagged": n - 1, "out_links": n - 1,
         "links": [{"from": o["from"], "kind": "bw", "to": o["to"]} for o in outliers
                   if names[h] in (o["from"], o["to"])]}
        for h in slow_hosts]
    p["refuted_suspects"] = []
    p["retests"] = [{"first": o["value"], "from": o["from"], "kind": "bw", "role": "link", "still_bad": True,
                     "to": o["to"], "value": o["value"]} for o in outliers[:8]]
    p["bidir_gbps"] = None
    p["notes"] = [f"synthetic: scaled by bench/scale_report.py from {a.seed_report}"]
    markers = {key: f"@@{key}@@" for key in ("bw_gbps", "lat_p50_us", "lat_p99_us", "lat_min_us", "schedule")}
    for key, m in markers.items():
        p[key] = m

    # ---- latency: per pair (a ring of host leaders), stragglers, spikes ----
    ring = [(i, (i + 1) % n) for i in range(n)]
    for e in doc.get("latency") or []:
        if e.get("per_pair"):
            tmpl = [renamed(pp, {}) for pp in e["per_pair"]]
            per_pair, strag = [], []
            for q, (i, j) in enumerate(ring):
                pp = copy.deepcopy(tmpl[q % len(tmpl)])
                pp["pair"], pp["hosts"], pp["ranks"], pp["round"] = (f"{names[i]}-{names[j]}", [names[i], names[j]],
                                                                     [i * rph, j * rph], q % 2)
                per_pair.append(pp)
                strag.append({"count": 1 + q % 7, "hosts": [names[i], names[j]], "pair": pp["pair"],
                              "ranks": pp["ranks"], "samples": pp.get("samples", 0), "share": (1 + q % 7) / (4 * n)})
            e["per_pair"], e["stragglers"] = per_pair, sorted(strag, key=lambda s: -s["count"])
            if isinstance(e.get("spikes"), dict):
                e["spikes"]["by_source"] = e["stragglers"][: min(n, 256)]
            e["nranks"] = n
        elif e.get("stragglers"):
            e["stragglers"] = [{"count": 1 + r % 5, "host": names[r // rph], "rank": r, "samples": 300,
                                "share": (1 + r % 5) / (3 * nranks)} for r in range(nranks)]
            e["nranks"] = nranks

    # ---- incast, scaling, score ----
    if doc.get("incast"):
        base = doc["incast"][-1]
        entries = []
        k_in = 1
        while k_in <= min(64, n - 2):
            e = renamed(base, {h: names[0] for h in seed_hosts})
            e["fan_in"], e["receiver"], e["senders"] = k_in, names[0], names[1 : 1 + k_in]
            if isinstance(e.get("victim"), dict):
                e["victim"]["host"] = names[-1]
            e["incast_efficiency"] = 1.0 / (1 + 0.05 * (k_in - 1))
            entries.append(e)
            k_in *= 2
        doc["incast"] = entries
        if isinstance(doc.get("incast_meta"), dict):
            doc["incast_meta"]["endpoints"] = names
    sc = doc.get("scaling")
    if isinstance(sc, dict) and sc.get("groups"):
        g0 = sc["groups"][-1]
        groups, g = [], 2
        while g <= n:
            e = copy.deepcopy(g0)
            e.update({"hosts": g, "nranks": g * rph, "host_names": names[:g], "intra_node_only": False,
                      "vs_2host": 1.0 / (1 + 0.03 * (g.bit_length() - 2))})
            e["busbw_gbps"] = sc["groups"][0]["busbw_gbps"] * e["vs_2host"]
            groups.append(e)
            g = g * 2 if g * 2 <= n or g == n else n
        sc["groups"] = groups
    if isinstance(doc.get("score"), dict):
        doc["score"]["hosts"] = n

    # ---- findings: per host, and the planted faults ----
    findings = []
    for f in seed.get("findings") or []:
        host = (f.get("evidence") or {}).get("host")
        if host in seed_hosts:
            if host == seed_hosts[0]:
                t = json.dumps(renamed(f, to_first))
                findings += [json.loads(t.replace(f'"{names[0]}', f'"{h}').replace(f" {names[0]}:", f" {h}:"))
                             for h in names]
        else:
            findings.append(renamed(f, {h: names[i] for i, h in enumerate(seed_hosts)}))
    for h in slow_hosts:
        findings.insert(0, {"code": "PAIRS_SLOW_HOST", "severity": "fail",
                            "message": f"host {names[h]}: {n - 1}/{n - 1} outgoing, {n - 1}/{n - 1} incoming "
                                       f"bandwidth links and 0/{n - 1} latency pairs are outliers, confirmed against "
                                       "good partners",
                            "evidence": {"host": names[h], "confirmed": True, "bw_median_gbps": bw_med},
                            "remedy": "check the host's NIC, cable and switch port (link rate, errors); drain it"})
    for i, j in slow_links:
        findings.insert(0, {"code": "PAIRS_SLOW_LINK", "severity": "fail",
                            "message": f"link {names[i]} -> {names[j]}: {bw_med * 0.3:.3f} GB/s, median {bw_med:.3f} "
                                       "GB/s (robust_z)",
                            "evidence": {"kind": "bw", "from": names[i], "to": names[j], "value": bw_med * 0.3,
                                         "median": bw_med, "confirmed": True},
                            "remedy": "check the cable/port on this path in this direction"})
    doc["findings"] = findings

    # ---- write: the document's text with the matrices streamed in place of their markers ----
    text = json.dumps(doc, separators=(",", ":"))
    with open(a.out, "w") as out:
        rest = text
        for key, m in sorted(markers.items(), key=lambda km: text.index(f'"{km[1]}"')):
            head, rest = rest.split(f'"{m}"', 1)
            out.write(head + "[")
            if key == "schedule":
                out.write(",".join(json.dumps(r, separators=(",", ":")) for r in circle_schedule(names)))
            for i in range(n if key != "schedule" else 0):
                if key == "bw_gbps":
                    row = ",".join(bw_rows[i][1])
                else:
                    row = lat_row(i, {"lat_p50_us": 1.0, "lat_p99_us": r99, "lat_min_us": rmin}[key])
                out.write(("," if i else "") + "[" + row + "]")
            out.write("]")
        out.write(rest)
    if a.change_links:
        with open(a.out + ".changed.json", "w") as f:
            json.dump(changed_out, f, indent=1)
    print(f"scale_report: {a.out}: {n} hosts x {rph} ranks, {len(outliers)} outlier links planted, "
          f"{len(changed_out)} links changed", file=sys.stderr)


if __name__ == "__main__":
    main()
