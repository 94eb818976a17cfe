"""Perft speed: leaves per second for classic depth 5 from the start (19,024,320 leaves).

    python benchmarks/perft_speed.py [--depth 5] [--variant classic] [--repeat 3]

The last ply is counted without being played (bulk counting), as docs/rules.md's perft allows.
Prints each run and the best; the machine is shared, so read the best of several runs.
"""

from __future__ import annotations

import argparse
import platform
import time

from companion.rules import Position, Variant, perft


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    position = Position(Variant.from_spec(args.variant))
    print(f"{platform.python_implementation()} {platform.python_version()} on {cpu_name()}")
    rates = []
    for run in range(1, args.repeat + 1):
        started = time.perf_counter()
        nodes = perft(position, args.depth)
        seconds = time.perf_counter() - started
        rates.append(nodes / seconds)
        print(
            f"run {run}: {args.variant} depth {args.depth}: {nodes} leaves in {seconds:.2f} s "
            f"= {nodes / seconds:,.0f} leaves/s"
        )
    print(f"best: {max(rates):,.0f} leaves/s")


if __name__ == "__main__":
    main()
