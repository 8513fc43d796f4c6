#!/usr/bin/env python3
"""Counts a cubin's SASS: instructions (without the padding NOPs and the final self-branch), and
the hot loop: among the innermost loops (regions closed by a backward branch that hold no other
one), the one with the most memory instructions (LDG, LDS, STG, STS), which is the unrolled main
loop rather than its remainder; its size and memory instructions tell the instructions per
source iteration.

usage: sass_stats.py CUOBJDUMP CUBIN  ->  prints "instructions loop_size loop_memory_ops"
"""
import re
import subprocess
import sys

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?);")

def main() -> None:
    cuobjdump, cubin = sys.argv[1], sys.argv[2]
    sass = subprocess.run([cuobjdump, "-sass", cubin], check=True, capture_output=True, text=True).stdout
    instructions = []
    for match in LINE.finditer(sass):
        address, text = int(match.group(1), 16), match.group(2).strip()
        instructions.append((address, text))
    while instructions and (instructions[-1][1] == "NOP" or instructions[-1][1].startswith("BRA") and int(instructions[-1][1].split()[-1], 16) == instructions[-1][0]):
        instructions.pop()
    regions = []
    for address, text in instructions:
        branch = re.search(r"BRA (0x[0-9a-f]+)", text)
        if branch and int(branch.group(1), 16) <= address:
            regions.append((int(branch.group(1), 16), address))
    innermost = [r for r in regions if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in regions)]
    loops = []
    for target, end in innermost:
        body = [t for a, t in instructions if target <= a <= end]
        memory = sum(1 for t in body if re.match(r"(@!?P\d+ )?(LDG|LDS|STG|STS)", t))
        loops.append((memory, -len(body)))
    memory, size = max(loops) if loops else (0, 0)
    print(len(instructions), -size, memory)

if __name__ == "__main__":
    main()
