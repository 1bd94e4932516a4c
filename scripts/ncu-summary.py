#!/usr/bin/env python3
"""Per-kernel lines from an `ncu` text report (scripts/gpu-prof.sh): duration, SM and memory throughput,
registers, achieved occupancy, local-memory spills — what bounds each kernel."""
import re, sys

cur, rows = None, []
for line in open(sys.argv[1], errors='replace'):
    m = re.match(r'^\s{2}(\S.*?)\s+\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)', line)
    if m:
        cur = {'name': m.group(1)[:70]}
        rows.append(cur)
        continue
    if cur is None:
        continue
    m = re.match(r'^\s+(Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|'
                 r'Grid Size|Block Size)\s+(\S+)\s+([\d.,]+)', line)
    if m:
        cur[m.group(1)] = (m.group(3).replace(',', ''), m.group(2))
for r in rows:
    d, unit = r.get('Duration', ('0', 'us'))
    ms = float(d) / (1000.0 if unit == 'us' else 1e6 if unit == 'ns' else 1.0) if unit != 'ms' else float(d)
    if unit == 'ms':
        ms = float(d)
    print(f"{ms:9.3f} ms  sm {r.get('Compute (SM) Throughput', ('-',))[0]:>5}%  mem {r.get('Memory Throughput', ('-',))[0]:>5}%"
          f"  regs {r.get('Registers Per Thread', ('-',))[0]:>4}  occ {r.get('Achieved Occupancy', ('-',))[0]:>5}%"
          f"  grid {r.get('Grid Size', ('-',))[0]:>8}  {r['name']}")
