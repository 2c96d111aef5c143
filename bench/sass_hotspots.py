#!/usr/bin/env python3
"""Where a kernel's warps wait, from Nsight Compute's per-instruction warp-state samples.

    python3 bench/sass_hotspots.py profile_qwen_sass.csv [--top 30] [--window 0x800]

The CSV is `ncu -i REPORT --page source --csv --print-source sass` (the `profile` step of
bench/device_batch.sh writes one). Prints the stall reasons' shares, the share of samples in
each window of code (offsets from the kernel's first instruction, with its most executed
opcodes: the inlined device functions show by what they do) and the instructions with the
most samples.
"""
import argparse
import csv
from collections import Counter, defaultdict

ALL = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def opcode(sass):
    words = sass.split()
    word = words[1] if words[0].startswith("@") else words[0]
    return word.split(".")[0]


def main():
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("csv")
    cli.add_argument("--top", type=int, default=30)
    cli.add_argument("--window", type=lambda x: int(x, 0), default=0x800)
    args = cli.parse_args()
    rows = list(csv.reader(open(args.csv)))
    # The first line names the kernel; the second is the header.
    header, data = rows[1], [r for r in rows[2:] if len(r) == len(rows[1])]
    col = {h: i for i, h in enumerate(header)}
    stalls = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    samples = lambda r: int(r[col[ALL]] or 0)
    total = sum(map(samples, data)) or 1
    base = int(data[0][0], 16)
    print(f"{rows[0][1]}: {total} samples, {len(data)} instructions")
    reasons = Counter({s: sum(int(r[col[s]] or 0) for r in data) for s in stalls})
    print("  ".join(f"{s[6:]} {100 * v / total:.1f}%" for s, v in reasons.most_common(8)))
    windows = defaultdict(list)
    for r in data:
        windows[(int(r[0], 16) - base) // args.window].append(r)
    print(f"\nwindows of {args.window:#x} bytes with at least 1% of the samples:")
    for w, rs in sorted(windows.items()):
        share = sum(map(samples, rs)) / total
        if share >= 0.01:
            ops = Counter()
            for r in rs:
                ops[opcode(r[1])] += int(r[col[EXECUTED]] or 0)
            top = ", ".join(f"{o} {n:.2g}" for o, n in ops.most_common(6))
            print(f"  +{w * args.window:#07x} {100 * share:5.1f}%  {top}")
    print(f"\nthe {args.top} instructions with the most samples:")
    for r in sorted(data, key=samples, reverse=True)[: args.top]:
        why = max(stalls, key=lambda s: int(r[col[s]] or 0))[6:]
        print(f"  +{int(r[0], 16) - base:#07x} {100 * samples(r) / total:4.1f}% "
              f"{why:<16} x{r[col[EXECUTED]]:<10} {r[1].strip()[:60]}")


if __name__ == "__main__":
    main()
