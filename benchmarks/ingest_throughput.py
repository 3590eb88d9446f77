"""Ingest throughput against this machine's limit, measured side by side in one run.

For one cached 1 GiB file, the machine's limit is the slower of hashing it
(``openssl dgst -sha256 FILE``) and storing a durable copy (``cp FILE COPY && sync COPY``).
The script times both and ``casebuilder ingest FILE`` into a fresh case, three times each,
interleaved, and prints limit / ingest wall time (median of 3); at least 0.8 is the target.
Because casebuilder also computes SHA-512 in the same pass, it also prints the ratio against a
limit that includes ``openssl dgst -sha512``, which is what the hardware really allows here.

    python benchmarks/ingest_throughput.py [--size-mib 1024] [--runs 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(command: list[str] | str, *, shell: bool = False) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, shell=shell, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def make_file(path: Path, size_mib: int) -> None:
    with open(path, "wb") as fh:
        for _ in range(size_mib):
            fh.write(os.urandom(1024 * 1024))
        fh.flush()
        os.fsync(fh.fileno())
    with open(path, "rb") as fh:  # warm the page cache: the file is "cached" for every run
        while fh.read(16 * 1024 * 1024):
            pass


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="working folder (default: a temporary folder in the repo's "
        "benchmarks/out, on the same disk as a case home would be)",
    )
    args = parser.parse_args()
    casebuilder = shutil.which(
        "casebuilder", path=str(Path(sys.executable).parent)
    ) or shutil.which("casebuilder")
    if casebuilder is None:
        print("casebuilder is not installed in this environment", file=sys.stderr)
        return 2
    base = args.dir or Path(__file__).resolve().parent / "out"
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="ingest-bench-", dir=base))
    try:
        source = work / "evidence.bin"
        make_file(source, args.size_mib)
        rows = []
        for run in range(args.runs):
            copy = work / "copy.bin"
            t_hash = timed(["openssl", "dgst", "-sha256", str(source)])
            t_hash512 = timed(["openssl", "dgst", "-sha512", str(source)])
            t_copy = timed(f"cp '{source}' '{copy}' && sync '{copy}'", shell=True)
            copy.unlink()
            home = work / f"case-{run}"
            subprocess.run(
                [casebuilder, "--home", str(home), "init"], check=True, stdout=subprocess.DEVNULL
            )
            t_ingest = timed(
                [casebuilder, "--home", str(home), "ingest", "--no-progress", str(source)]
            )
            shutil.rmtree(home)
            limit = max(t_hash, t_copy)
            limit512 = max(t_hash, t_hash512, t_copy)
            rows.append(
                (t_hash, t_hash512, t_copy, t_ingest, limit / t_ingest, limit512 / t_ingest)
            )
            print(
                f"run {run + 1}: openssl sha256 {t_hash:.3f}s  sha512 {t_hash512:.3f}s  "
                f"cp+sync {t_copy:.3f}s  casebuilder ingest {t_ingest:.3f}s  "
                f"ratio {limit / t_ingest:.2f}  (with sha512 in the limit "
                f"{limit512 / t_ingest:.2f})"
            )
        ratio = statistics.median(r[4] for r in rows)
        ratio512 = statistics.median(r[5] for r in rows)
        print(f"\n{args.size_mib} MiB file, median of {args.runs}:")
        print(f"  limit / ingest = {ratio:.2f}   (target >= 0.80)")
        print(f"  limit including SHA-512 / ingest = {ratio512:.2f}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
