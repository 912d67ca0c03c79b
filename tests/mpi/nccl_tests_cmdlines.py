#!/usr/bin/env python3
"""nccl-tests command lines through `fabcheck sweep` on the MPI backend. Each either runs with its
nccl-tests meaning (exit 0, the nccl-tests table) or is refused with exactly one `fabcheck: error:` line naming the
backend or the rule that has it (exit 2); none is an unknown flag. Sizes above 1 MiB are held to 1 MiB, -n to 5 and
-w to 1 so the matrix runs in seconds on 2 local ranks; the flags are as written in their sources.

Real command lines (the *_perf binary replaced by `fabcheck sweep --coll <its collective>`):"""
import os, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
from run_common import *

REAL = [
    # github.com/FlagOpen/FlagPerf base/toolkits/interconnect-MPI_intraserver/denglin/GS40/main.sh
    ("FlagPerf GS40", "allreduce", "-t 1 -g 1 -b 2M -e 32M -d float -o sum", "run"),
    # github.com/aws/deep-learning-containers test/sagemaker_tests/healthcheck_tests/nccl_test.sh (8 GPUs, 1 process)
    ("aws DLC healthcheck", "allreduce", "-b 8 -e 128M -f 2 -g 8", "-g/--ngpus"),
    # github.com/ssbandjl/nccl-tests run.sh (2 nodes, one rank per GPU)
    ("ssbandjl run.sh", "allreduce", "-b 8 -e 1G -f 2 -g 1", "run"),
    # github.com/sfantao/lumi-ai-workflow-tests rccltest/rocm701.runfolder/run.sh (rccl-tests, the same flags)
    ("lumi rccl-tests", "allreduce", "-z 1 -b 2M -e 2048M -f 2 -g 1 -t 1 -R 1 -n 80 -w 5 -d half", "nccl backend"),
    # NVIDIA/nccl-tests README.md "Quick examples": all_reduce_perf on 8 GPUs of one process, then 64 ranks by MPI
    ("nccl-tests README (1 proc)", "allreduce", "-b 8 -e 256M -f 2 -g 8", "-g/--ngpus"),
    ("nccl-tests README (MPI)", "allreduce", "-b 8 -e 8G -f 2 -g 1", "run"),
    # github.com/NVIDIA/nccl-tests/issues/333: latency runs with buffer registration and CUDA graphs (-R 2 -G 100)
    ("nccl-tests#333 latency", "allreduce", "-b 8 -e 8 -R 2 -G 100", "nccl backend"),
    # github.com/NVIDIA/nccl-tests/pull/349: timestamps (-S) for monitoring with endless cycles (-N 0)
    ("PR#349 monitoring", "allreduce", "-b 1M -e 1M -N 0 -S 1", "-N/--run_cycles"),
]

# Every flag of nccl-tests' getopt string "t:g:b:e:i:f:n:m:w:N:p:I:K:c:o:d:r:z:y:T:hG:C:a:R:x:D:V:J:S:M:u:" (HEAD
# v2.19.6, common.cu), one at a time with a value nccl-tests accepts: run, or one line naming what has it.
FLAGS = [
    ("-t 1", "run"), ("-t 2", "-t/--nthreads"), ("-g 1", "run"), ("-b 64", "run"),
    ("-e 64", "-b/--minbytes"),  # -b stays at its 32M default: nccl-tests refuses min > max too
    ("-i 64", "run"), ("-f 4", "run"), ("-n 3", "run"), ("-m 2", "run"), ("-w 2", "run"),
    ("-N 2", "run"), ("-p 1", "run"), ("-I 1", "run"), ("-I 1 -K 1", "run"), ("-c 0", "run"),
    ("-o prod", "run"), ("-o avg", "run"), ("-o mulsum", "nccl backend"), ("-d int8", "run"),
    ("-d f8e4m3", "run"), ("-d f8e5m2", "run"), ("-r 0", "run"), ("-z 3", "run"), ("-y 1", "run"), ("-T 30", "run"),
    ("-h", "help"), ("-G 1", "nccl backend"), ("-C 1", "run"), ("-a 3", "run"), ("-R 1", "nccl backend"),
    ("-x 1", "nccl backend"), ("-D 1", "nccl backend"), ("-V 8", "nccl backend"), ("-J {json}", "run"),
    ("-S 1", "run"), ("-M 1", "nccl backend"), ("-u 1", "run"),
]


def shrink(args):
    out = []
    words = args.split()
    for i, w in enumerate(words):
        prev = words[i - 1] if i else ""
        if prev in ("-b", "-e") and re.fullmatch(r"\d+[KMG]?", w):
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(w[-1], 1)
            n = int(w[:-1] if w[-1] in "KMG" else w) * mult
            w = str(min(n, 1 << 20))
        if prev == "-n":
            w = str(min(int(w), 5))
        if prev == "-w":
            w = str(min(int(w), 1))
        out.append(w)
    return out


tmp = tempfile.mkdtemp()
cases = [(f"{name}: {args}", coll, args, want) for name, coll, args, want in REAL]
cases += [(f"flag {a}", "allreduce", a, w) for a, w in FLAGS]


def launch(case):
    label, coll, args, want = case
    argv = shrink(args.replace("{json}", os.path.join(tmp, "j.json")))
    if "-b" not in argv and "-e" not in argv and "-i" not in argv:
        argv = ["-b", "8", "-e", "64"] + argv  # nccl-tests' 32M default size, held small
    if "-n" not in argv:
        argv += ["-n", "3"]
    return subprocess.run(MPI + ["-np", "2", FAB, "sweep", "--coll", coll] + argv, capture_output=True, text=True,
                          timeout=120)


# The command lines are independent and nothing here is timed: three at a time (an mpirun start is mostly
# waiting), checked in order.
bad = []
with ThreadPoolExecutor(max_workers=3) as pool:
    for (label, coll, args, want), p in zip(cases, pool.map(launch, cases)):
        errs = [l for l in p.stderr.splitlines() if l.startswith("fabcheck: error:")]
        unknown = any("not expected" in l or "unknown" in l.lower() and "backend" not in l for l in errs)
        if want == "run":
            ok = p.returncode == 0 and "# Collective test concluded" in p.stdout and not errs
        elif want == "help":
            ok = p.returncode == 0 and "-b" in p.stdout
        else:
            ok = p.returncode == 2 and len(errs) == 1 and want in errs[0] and not unknown
        print(f"{'ok  ' if ok else 'FAIL'} {label} -> exit {p.returncode} {errs[0][:150] if errs else ''}")
        if not ok or unknown:
            bad.append(label)
print(f"{len(cases) - len(bad)} of {len(cases)} command lines ran with their nccl-tests meaning or were refused "
      "with one line naming what has them")
sys.exit(1 if bad else 0)
