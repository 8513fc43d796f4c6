"""Median wall time of commands run in turn, five rounds (issue 67's benchmarks).

    python3 bench/scaling/median.py LABEL -- CMD ... [--- LABEL -- CMD ...]

Each round runs every command once, in order, so the machine's slow moments fall on all of
them alike; the medians and their ratio to the first command are printed.
"""

import statistics
import subprocess
import sys
import time

ROUNDS = 5


def parse(argv):
    commands, current = [], []
    for arg in argv + ["---"]:
        if arg == "---":
            if current:
                label, sep, *cmd = current
                assert sep == "--", "LABEL -- CMD"
                commands.append((label, cmd))
            current = []
        else:
            current.append(arg)
    return commands


def main():
    commands = parse(sys.argv[1:])
    times = {label: [] for label, _ in commands}
    for _ in range(ROUNDS):
        for label, cmd in commands:
            start = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            times[label].append(time.perf_counter() - start)
    first = statistics.median(times[commands[0][0]])
    for label, _ in commands:
        median = statistics.median(times[label])
        spread = ", ".join(f"{t:.2f}" for t in sorted(times[label]))
        print(f"{label}: median {median:.3f} s ({spread}); {first / median:.2f}x the first")


if __name__ == "__main__":
    main()
