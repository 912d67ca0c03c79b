#!/usr/bin/env python3
"""The first-screen promises, read from a run's report and its --exclude-hostfile.

usage: first_screen_check.py REPORT HOSTFILE clean
       first_screen_check.py REPORT HOSTFILE host HOST
       first_screen_check.py REPORT HOSTFILE link FROM TO

clean: no warn or fail finding about the fabric (HOST_CPU_BUSY, about the hosts' CPUs, may stand: it states the
       load it measured), all 4 hosts in the good-hosts file;
host:  the first finding is a fail naming HOST (evidence.host), HOST is not in the good-hosts file, the other 3 are;
link:  the first finding is PAIRS_SLOW_LINK FROM -> TO (fail), no fail finding blames a host, all 4 hosts are good.
Exit 1 with the broken promise on stderr.
"""
import json
import sys


def main(argv):
    report, hostfile, kind, *where = argv[1:]
    d = json.load(open(report))
    good = [l.strip() for l in open(hostfile) if l.strip() and not l.startswith("#")]
    fs = d["findings"]
    loud = [f for f in fs if f["severity"] in ("warn", "fail")]
    print(f"  {kind}: first findings {[(f['severity'], f['code']) for f in fs[:3]]}; warn/fail "
          f"{[f['code'] for f in loud]}; info {sorted(set(f['code'] for f in fs if f['severity'] == 'info'))}; "
          f"good hosts {good}", file=sys.stderr)
    busy = [f for f in fs if f["code"] == "HOST_CPU_BUSY"]
    if busy:
        print(f"  {kind}: {busy[0]['message']}", file=sys.stderr)
    if kind == "clean":
        about_fabric = [f["code"] for f in loud if f["code"] != "HOST_CPU_BUSY"]
        assert not about_fabric, f"clean fabric: warn/fail findings {about_fabric}"
        assert len(good) == 4, good
    elif kind == "host":
        slow = where[0]
        first = fs[0] if fs else {}
        assert first.get("severity") == "fail" and first.get("evidence", {}).get("host") == slow, (slow, first)
        assert slow not in good and len(good) == 3, (slow, good)
    elif kind == "link":
        a, b = where
        first = fs[0] if fs else {}
        assert first.get("severity") == "fail" and first.get("code") == "PAIRS_SLOW_LINK", first
        assert (first["evidence"]["from"], first["evidence"]["to"]) == (a, b), (a, b, first["evidence"])
        blamed = [f["evidence"]["host"] for f in fs if f["severity"] == "fail" and "host" in f.get("evidence", {})]
        assert not blamed, f"a host was blamed for one link: {blamed}"
        assert len(good) == 4, good
    else:
        raise SystemExit(f"first_screen_check.py: unknown kind {kind} (clean, host, link)")


if __name__ == "__main__":
    try:
        main(sys.argv)
    except AssertionError as e:
        print(f"first screen: {e}", file=sys.stderr)
        sys.exit(1)
